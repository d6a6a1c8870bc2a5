// Where a page's measured settings come from: the tracker's trade-off points, or the JSON
// that `basketbench advise FILE.root --json OUT` wrote (read in the browser, never uploaded).
import type { Candidate, CostModel, TradeoffPoint } from '@/types/api';

export const DEFAULT_MODEL: CostModel = {
  storage_per_tb_month: 20,
  months: 36,
  cpu_per_core_hour: 0.05,
  reads_per_file: 10,
  writes_per_file: 1,
  network_mb_per_s: 100,
};

/** Trade-off points with a size and both speeds; raw bytes = compressed bytes x ratio. */
export function fromTradeoff(points: readonly TradeoffPoint[], preconditioner: string): Candidate[] {
  const out: Candidate[] = [];
  for (const p of points) {
    const c = p.compress_mbps?.median;
    const d = p.decompress_mbps?.median;
    if (p.algorithm === 0 || !p.compressed_bytes || !p.ratio || !c || !d) continue;
    out.push({
      setting: p.setting,
      preconditioner: preconditioner as Candidate['preconditioner'],
      raw_bytes: Math.round(p.compressed_bytes * p.ratio),
      compressed_bytes: Math.round(p.compressed_bytes),
      compress_mb_s: c,
      decompress_mb_s: d,
    });
  }
  return out;
}

export interface AdviceFile {
  file: string;
  candidates: Candidate[];
  model: CostModel | null;
}

const NUM_FIELDS = ['setting', 'raw_bytes', 'compressed_bytes', 'compress_mb_s', 'decompress_mb_s'] as const;

/** Parse `advise --json` output; throws an Error naming what is wrong. */
export function parseAdvice(text: string): AdviceFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error('not a JSON file');
  }
  const d = doc as { file?: unknown; measured?: unknown; model?: unknown };
  if (!Array.isArray(d.measured) || d.measured.length === 0) throw new Error('no "measured" list: is this `basketbench advise --json` output?');
  const candidates = d.measured.map((m: Record<string, unknown>, i: number) => {
    for (const f of NUM_FIELDS) {
      if (typeof m[f] !== 'number' || !Number.isFinite(m[f])) throw new Error(`measured[${i}].${f} must be a number`);
    }
    return {
      setting: m.setting as number,
      preconditioner: (typeof m.preconditioner === 'string' ? m.preconditioner : 'none') as Candidate['preconditioner'],
      raw_bytes: m.raw_bytes as number,
      compressed_bytes: m.compressed_bytes as number,
      compress_mb_s: m.compress_mb_s as number,
      decompress_mb_s: m.decompress_mb_s as number,
    };
  });
  const model = d.model && typeof d.model === 'object' ? { ...DEFAULT_MODEL, ...(d.model as Partial<CostModel>) } : null;
  return { file: typeof d.file === 'string' ? d.file : 'advice.json', candidates, model };
}
