import { describe, expect, it } from 'vitest';
import type { TradeoffPoint } from '@/types/api';
import { paretoFront } from './pareto';
import { relativeTo, toPlotPoint } from './relative';

function point(setting: number, ratio: number, c: number | null, d: number | null, bytes = 1000): TradeoffPoint {
  return {
    setting,
    algorithm: Math.floor(setting / 100),
    configuration_id: setting,
    label: String(setting),
    codec: 'x',
    level: setting % 100,
    ratio,
    compressed_bytes: bytes,
    compress_mbps: c === null ? null : { median: c, min: c * 0.9, max: c * 1.1 },
    decompress_mbps: d === null ? null : { median: d, min: d, max: d },
    pareto_compress: false,
    pareto_decompress: false,
    relative: null,
  };
}

describe('relativeTo', () => {
  const pts = [point(505, 4, 200, 1000, 500), point(101, 3, 100, 400, 700), point(404, 2, 400, 2000, 1000)].map((p) => toPlotPoint(p));

  it('divides every value by the reference setting (default ZSTD-5)', () => {
    const { points, referenceFound } = relativeTo(pts, 505);
    expect(referenceFound).toBe(true);
    const ref = points.find((p) => p.setting === 505)!;
    expect(ref.ratio).toBe(1);
    expect(ref.compress).toBe(1);
    expect(ref.decompress).toBe(1);
    const zlib = points.find((p) => p.setting === 101)!;
    expect(zlib.ratio).toBeCloseTo(0.75);
    expect(zlib.compress).toBeCloseTo(0.5);
    expect(zlib.decompress).toBeCloseTo(0.4);
    expect(zlib.compressedBytes).toBeCloseTo(1.4);
    // the spread is scaled by the reference median, keeping the band around the point
    expect(zlib.compressMin).toBeCloseTo(0.45);
    expect(zlib.compressMax).toBeCloseTo(0.55);
  });

  it('reports a missing reference instead of dividing by something else', () => {
    const r = relativeTo(pts, 207);
    expect(r.referenceFound).toBe(false);
    expect(r.points).toEqual([]);
  });

  it('keeps failed speeds as null and the Pareto set unchanged (a positive scaling)', () => {
    const withFailed = [...pts, toPlotPoint(point(201, 5, null, null))];
    const { points } = relativeTo(withFailed, 505);
    expect(points.find((p) => p.setting === 201)!.compress).toBeNull();
    const names = (ps: typeof pts) => paretoFront(ps, (p) => p.ratio, (p) => p.compress).map((p) => p.setting);
    expect(names(points)).toEqual(names(withFailed));
  });
});

describe('toPlotPoint on the instructions axis', () => {
  it('takes the counts as the speeds, without min..max, null where not counted', () => {
    const counted = { ...point(505, 4, 200, 1000), compress_instructions_per_mb: 4.5e8, decompress_instructions_per_mb: 2.5e7 };
    const c = toPlotPoint(counted, 'instructions');
    expect([c.compress, c.decompress, c.compressMin, c.decompressMax]).toEqual([4.5e8, 2.5e7, null, null]);
    expect(c.ratio).toBe(4);
    const timed = toPlotPoint(point(101, 3, 100, 400), 'instructions');
    expect([timed.compress, timed.decompress]).toEqual([null, null]);
    expect(toPlotPoint(counted).compress).toBe(200); // the default stays MB/s
  });
});
