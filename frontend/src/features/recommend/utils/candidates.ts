// Where a page's measured settings come from: the tracker's trade-off points, or the JSON
// that `basketbench advise FILE.root --json OUT` wrote (read in the browser, never uploaded).
import type { Candidate, CostModel, GroupSizes, SettingSpeeds, TradeoffPoint } from '@/types/api';

export const DEFAULT_MODEL: CostModel = {
  storage_per_tb_month: 20,
  months: 36,
  cpu_per_core_hour: 0.05,
  reads_per_file: 10,
  writes_per_file: 1,
  network_mb_per_s: 100,
};

/** The algorithms `advise` ranks (zlib, lzma, lz4, zstd; the API refuses the others). */
const ADVISE_ALGORITHMS = new Set([1, 2, 4, 5]);

/** Trade-off points with a size and both speeds; raw bytes = compressed bytes x ratio. */
export function fromTradeoff(points: readonly TradeoffPoint[], preconditioner: string): Candidate[] {
  const out: Candidate[] = [];
  for (const p of points) {
    const c = p.compress_mbps?.median;
    const d = p.decompress_mbps?.median;
    if (!ADVISE_ALGORITHMS.has(p.algorithm) || p.setting % 100 > 9) continue;
    if (!p.compressed_bytes || !p.ratio || !c || !d) continue;
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
  /** per type class and per branch (older advise files may lack them: empty) */
  typeClasses: GroupSizes[];
  branches: GroupSizes[];
  /** what measured it and how stable the answer is (advise files before these lack them: null) */
  provenance: AdviceProvenance | null;
  stability: AdviceStability | null;
  speedEvidence: string | null;
  currency: string | null;
}

export interface AdviceProvenance {
  root_version: string | null;
  codec_set: string | null;
  codec_versions: Record<string, string>;
  cpu_model: string | null;
  measured_at: string | null;
}

export interface AdviceStability {
  statement: string;
  stable: boolean;
  contenders: string[];
}

const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function provenanceOf(v: unknown): AdviceProvenance | null {
  const p = obj(v);
  if (!p) return null;
  const versions = obj(p.codec_versions) ?? {};
  return {
    root_version: strOrNull(p.root_version),
    codec_set: strOrNull(p.codec_set),
    codec_versions: Object.fromEntries(Object.entries(versions).filter(([, x]) => typeof x === 'string')) as Record<string, string>,
    cpu_model: strOrNull(p.cpu_model),
    measured_at: strOrNull(p.measured_at),
  };
}

function stabilityOf(v: unknown): AdviceStability | null {
  const s = obj(v);
  if (!s || typeof s.statement !== 'string') return null;
  return { statement: s.statement, stable: s.stable === true, contenders: Array.isArray(s.contenders) ? s.contenders.filter((c): c is string => typeof c === 'string') : [] };
}

/** The speeds of each measured setting: what the server needs to rank a group's sizes. */
export const speedsOf = (candidates: readonly Candidate[]): SettingSpeeds[] =>
  candidates.map((c) => ({ setting: c.setting, preconditioner: c.preconditioner, compress_mb_s: c.compress_mb_s, decompress_mb_s: c.decompress_mb_s }));

/** A group's sizes as POST /recommend/groups takes them (advise's and GET /branch-sizes' groups). */
export function toGroupSizes(list: unknown, field: string): GroupSizes[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`"${field}" must be a list`);
  return list.map((g: Record<string, unknown>, i: number) => {
    if (typeof g.key !== 'string' || typeof g.raw_bytes !== 'number' || !Array.isArray(g.sizes)) {
      throw new Error(`${field}[${i}] needs a key, raw_bytes and sizes`);
    }
    return {
      key: g.key,
      type_class: typeof g.type_class === 'string' ? g.type_class : null,
      raw_bytes: g.raw_bytes,
      share: typeof g.share === 'number' ? g.share : 0,
      sizes: (g.sizes as Record<string, unknown>[]).map((z) => ({
        setting: z.setting as number,
        preconditioner: (typeof z.preconditioner === 'string' ? z.preconditioner : 'none') as Candidate['preconditioner'],
        compressed_bytes: z.compressed_bytes as number,
      })),
    };
  });
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
  const d = doc as {
    file?: unknown; measured?: unknown; model?: unknown; type_classes?: unknown; branches?: unknown;
    provenance?: unknown; stability?: unknown; speed_evidence?: unknown; currency?: unknown;
  };
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
  return {
    file: typeof d.file === 'string' ? d.file : 'advice.json',
    candidates,
    model,
    typeClasses: toGroupSizes(d.type_classes, 'type_classes'),
    branches: toGroupSizes(d.branches, 'branches'),
    provenance: provenanceOf(d.provenance),
    stability: stabilityOf(d.stability),
    speedEvidence: strOrNull(obj(d.speed_evidence)?.description),
    currency: strOrNull(d.currency),
  };
}
