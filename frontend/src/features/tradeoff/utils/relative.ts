// "Relative to a reference setting" (ATLAS style, default ZSTD-5 = 505):
// every value divided by the reference's value on the same machine/dataset.
import type { TradeoffPoint } from '@/types/api';

export interface PlotPoint {
  setting: number;
  algorithm: number;
  level: number;
  codec: string;
  ratio: number;
  compressedBytes: number;
  compress: number | null;
  compressMin: number | null;
  compressMax: number | null;
  decompress: number | null;
  decompressMin: number | null;
  decompressMax: number | null;
}

/** What the speed axis shows: the timed MB/s, or the instructions per MB counted under valgrind. */
export type SpeedAxis = 'mbps' | 'instructions';

export const speedAxis = (v: string): SpeedAxis => (v === 'instructions' ? 'instructions' : 'mbps');

export function toPlotPoint(p: TradeoffPoint, axis: SpeedAxis = 'mbps'): PlotPoint {
  const base = {
    setting: p.setting,
    algorithm: p.algorithm,
    level: p.level,
    codec: p.codec,
    ratio: p.ratio ?? Number.NaN,
    compressedBytes: p.compressed_bytes ?? Number.NaN,
  };
  if (axis === 'instructions') {
    // counts are exact to the instruction: no min..max bars; null where the run was not counted
    return {
      ...base,
      compress: p.compress_instructions_per_mb ?? null,
      compressMin: null,
      compressMax: null,
      decompress: p.decompress_instructions_per_mb ?? null,
      decompressMin: null,
      decompressMax: null,
    };
  }
  return {
    ...base,
    compress: p.compress_mbps?.median ?? null,
    compressMin: p.compress_mbps?.min ?? null,
    compressMax: p.compress_mbps?.max ?? null,
    decompress: p.decompress_mbps?.median ?? null,
    decompressMin: p.decompress_mbps?.min ?? null,
    decompressMax: p.decompress_mbps?.max ?? null,
  };
}

function div(v: number | null, ref: number | null): number | null {
  if (v === null || ref === null || ref === 0 || !Number.isFinite(ref)) return null;
  return v / ref;
}

export interface RelativeResult {
  points: PlotPoint[];
  /** false when the reference setting is not among the points: nothing to divide by. */
  referenceFound: boolean;
}

export function relativeTo(points: readonly PlotPoint[], reference: number): RelativeResult {
  const ref = points.find((p) => p.setting === reference);
  if (!ref) return { points: [], referenceFound: false };
  return {
    referenceFound: true,
    points: points.map((p) => ({
      ...p,
      ratio: p.ratio / ref.ratio,
      compressedBytes: ref.compressedBytes === 0 ? NaN : p.compressedBytes / ref.compressedBytes,
      compress: div(p.compress, ref.compress),
      compressMin: div(p.compressMin, ref.compress),
      compressMax: div(p.compressMax, ref.compress),
      decompress: div(p.decompress, ref.decompress),
      decompressMin: div(p.decompressMin, ref.decompress),
      decompressMax: div(p.decompressMax, ref.decompress),
    })),
  };
}
