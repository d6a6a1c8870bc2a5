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
  return ['kind', 'base_ref', 'head_ref', kind === 'machines' ? 'commit' : 'machine', 'dataset', 'configuration', 'metric', 'base', 'head', 'delta_pct', 'delta_bytes', 'base_ratio', 'head_ratio', 'p_value', 'q_value', 'significant', 'regression'];
}

export function compareCsvRows(s: CsvContext, rows: readonly CompareRow[]): CsvCell[][] {
  return rows.map((r) => [s.kind, s.base, s.head, s.kind === 'machines' ? s.commit : s.machine, r.dataset, r.configuration.label, r.metric, r.base, r.head, r.delta_pct, r.delta_bytes ?? null, r.base_ratio ?? null, r.head_ratio ?? null, r.p_value, r.q_value ?? null, r.significant, r.regression]);
}
