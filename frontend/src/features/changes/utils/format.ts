import { fmtPct } from '@/lib/format';
import type { Change } from '@/types/api';

/** A change's 95 % interval: exact for sizes, '—' when the test gave none. */
export function interval(c: Change): string {
  if (c.kind === 'exact') return 'exact';
  if (c.ci_low_pct === null || c.ci_high_pct === null) return '—';
  return `${fmtPct(c.ci_low_pct)} … ${fmtPct(c.ci_high_pct)}`;
}
