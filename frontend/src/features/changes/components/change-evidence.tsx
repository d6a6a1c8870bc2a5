import { CommitLink } from '@/components/commit-link';
import { QueryView } from '@/components/ui/states';
import { fmtNumber, fmtPct } from '@/lib/format';
import type { ChangeDetail } from '@/types/api';
import { useChange } from '../api/get-change';

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function list(v: unknown): number[] {
  return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
}

function Evidence({ d }: { d: ChangeDetail }) {
  const ev = d.evidence;
  const result = (d.confirmation.result ?? {}) as Record<string, unknown>;
  const steps = Array.isArray(d.bisection.steps) ? (d.bisection.steps as Record<string, unknown>[]) : [];
  return (
    <div className="evidence" data-testid="change-evidence">
      {d.test === 'ab' ? (
        <ul>
          <li>
            interleaved A/B of this commit against its {String(ev.reference_kind ?? 'reference')} build: B/A{' '}
            {num(ev.ab_ratio)?.toFixed(4) ?? '—'}, interval {list(ev.ab_ci).map((x) => x.toFixed(4)).join(' – ') || '—'} over{' '}
            {String(ev.ab_pairs ?? '—')} pairs; screen p = {num(ev.screen_p)?.toExponential(1) ?? '—'}, q ={' '}
            {num(ev.screen_q)?.toExponential(1) ?? '—'} over {String(ev.family_size ?? '—')} A/B effects of the commit
          </li>
          <li>
            confirmation: one more A/B of the commit against the same reference
            {num(result.ab_ratio) !== null
              ? `: B/A ${num(result.ab_ratio)?.toFixed(4)}, interval ${list(result.ab_ci).map((x) => x.toFixed(4)).join(' – ')}, ${String(result.verdict)}`
              : ' (requested, not measured yet)'}
          </li>
        </ul>
      ) : d.kind === 'exact' ? (
        <p>
          Exact metric: {fmtNumber(d.base_value)} → {fmtNumber(d.head_value)} ({fmtPct(d.delta_pct)}). Sizes are deterministic, so any
          difference is a change.
        </p>
      ) : (
        <ul>
          <li>
            test <b>{d.test}</b> against {list(ev.reference).length} reference runs (median {fmtNumber(d.base_value)}); screen p ={' '}
            {num(ev.screen_p)?.toExponential(1) ?? '—'}, q = {num(ev.screen_q)?.toExponential(1) ?? '—'} over {String(ev.family_size ?? '—')}{' '}
            tests of the commit
          </li>
          <li>Mann-Whitney U of the suspect's samples against the parent's: p = {num(ev.mann_whitney_p)?.toExponential(1) ?? '—'}</li>
          <li>
            confirmation reruns (interleaved {Array.isArray(d.confirmation.interleaved) ? (d.confirmation.interleaved as string[]).join(' → ') : '—'}):
            parent {list(result.parent_reruns).map((x) => fmtNumber(x)).join(', ') || '—'}; suspect{' '}
            {list(result.suspect_reruns).map((x) => fmtNumber(x)).join(', ') || '—'}; reruns alone {fmtPct(num(result.rerun_delta_pct))}
            {typeof result.reason === 'string' ? ` — ${result.reason}` : ''}
          </li>
        </ul>
      )}
      {steps.length > 0 && (
        <p>
          bisection steps:{' '}
          {steps.map((s, k) => (
            <span key={k}>
              <CommitLink sha={String(s.sha)} repository={d.repository} /> {String(s.verdict ?? 'pending')}
              {k < steps.length - 1 ? ' · ' : ''}
            </span>
          ))}
        </p>
      )}
      {d.deliveries.length > 0 && (
        <p>
          notified:{' '}
          {d.deliveries.map((x) => `${x.channel} ${x.status} (${x.attempts} attempt${x.attempts === 1 ? '' : 's'})`).join(' · ')}
        </p>
      )}
    </div>
  );
}

export function ChangeEvidence({ id }: { id: number }) {
  const query = useChange(id);
  return <QueryView query={query} loadingLabel="Loading evidence…">{(d) => <Evidence d={d} />}</QueryView>;
}
