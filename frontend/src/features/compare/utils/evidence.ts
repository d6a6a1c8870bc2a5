// How the compare page words a speed row's evidence: what backs its verdict, or why it has none.
import type { CompareAb, CompareEvidence, CompareRow } from '@/types/api';

const fixed = (x: number) => x.toFixed(3);

/** The badge text of a row's evidence; null for rows without (sizes and counts are exact). */
export function evidenceText(e: CompareEvidence | null | undefined, ab: CompareAb | null | undefined, machines: boolean): string | null {
  if (!e) return null;
  if (e.kind === 'ab') {
    const confidence = Math.round(100 * (ab?.confidence ?? 0.95));
    return `A/B ${e.pairs} pairs, ${confidence} % CI: ×${fixed(e.ratio)} [${fixed(e.ci_low)}, ${fixed(e.ci_high)}]`;
  }
  if (e.kind === 'counts') {
    const moved = e.instructions_delta_pct;
    return `instruction counts${moved === null || moved === undefined ? '' : ` ${moved >= 0 ? '+' : ''}${moved.toFixed(2)} %`}`;
  }
  return machines ? 'no verdict: two machines' : 'no verdict: measured at different times';
}

/** The verdict column: speed rows without evidence have none (not "no change"). */
export function verdictText(r: CompareRow): string {
  if (r.evidence?.kind === 'none') return 'no verdict';
  return r.regression ? 'regression' : r.significant ? 'improvement' : 'no change';
}
