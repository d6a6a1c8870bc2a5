// The compare table as CSV: base / head and the fixed side (commit or machine) in every row,
// so an exported file carries its context.
import type { CsvCell } from '@/lib/csv';
import type { CompareRow } from '@/types/api';

interface CsvContext {
  kind: string;
  base: string;
  head: string;
  commit: string;
  machine: string;
}

export function compareCsvHeader(kind: string): string[] {
  return ['kind', 'base_ref', 'head_ref', kind === 'machines' ? 'commit' : 'machine', 'dataset', 'configuration', 'metric', 'base', 'head', 'delta_pct', 'delta_bytes', 'base_ratio', 'head_ratio', 'significant', 'regression', 'evidence', 'ab_ratio', 'ab_ci_low', 'ab_ci_high', 'ab_pairs', 'base_instructions_per_mb', 'head_instructions_per_mb'];
}

export function compareCsvRows(s: CsvContext, rows: readonly CompareRow[]): CsvCell[][] {
  return rows.map((r) => [s.kind, s.base, s.head, s.kind === 'machines' ? s.commit : s.machine, r.dataset, r.configuration.label, r.metric, r.base, r.head, r.delta_pct, r.delta_bytes ?? null, r.base_ratio ?? null, r.head_ratio ?? null, r.significant, r.regression, ...evidenceCells(r)]);
}

/** The evidence's kind and figures (empty where the kind has none). */
function evidenceCells(r: CompareRow): CsvCell[] {
  const e = r.evidence;
  if (!e) return [null, null, null, null, null, null, null];
  if (e.kind === 'ab') return [e.kind, e.ratio, e.ci_low, e.ci_high, e.pairs, null, null];
  if (e.kind === 'counts') return [e.kind, null, null, null, null, e.base_instructions_per_mb, e.head_instructions_per_mb];
  return [e.kind, null, null, null, null, null, null];
}
