// The rows behind one summary line: each change with its evidence and status buttons.
import { Fragment, useState } from 'react';
import { Link } from 'react-router';
import { Spinner } from '@/components/ui/states';
import { fmtPct, METRIC_LABELS } from '@/lib/format';
import { changeHistoryLink } from '@/lib/history-links';
import type { Change, ChangeSummaryLine } from '@/types/api';
import { useChanges, type ChangesParams } from '../api/get-changes';
import { interval } from '../utils/format';
import { ChangeEvidence } from './change-evidence';
import { StatusActions } from './status-actions';

/** A speed change as its commits' instruction counts judge it (backend stats/counts.py). */
const ATTRIBUTION_LABELS: Record<NonNullable<Change['attribution']>, string> = {
  code: 'code',
  'probably the machine': 'machine?',
  'busy machine: not tested': 'busy',
};

/** The rows behind one summary line, fetched when it is expanded. */
export function LineRows({ line, filter, token }: { line: ChangeSummaryLine; filter: ChangesParams; token: string }) {
  const [open, setOpen] = useState<number | null>(null);
  const rows = useChanges({ ...filter, commit: line.commit.sha, machine: String(line.machine.id), codec: line.codec, metric: line.metric, direction: line.direction, limit: 1000 });
  if (rows.isPending) return <Spinner label="Loading rows…" />;
  if (rows.error) return <p className="error-text">{rows.error.message}</p>;
  return (
    <table className="table" data-testid="line-rows">
      <thead>
        <tr>
          <th>series</th>
          <th>metric</th>
          <th className="num">change</th>
          <th>95 % interval</th>
          <th className="num">q</th>
          <th>state</th>
          <th>status</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.data.items.map((c) => (
          <Fragment key={c.id}>
            <tr className={c.direction === 'regression' ? 'row-bad' : 'row-good'} data-testid="change-row" data-status={c.status}>
              <td>
                <Link to={changeHistoryLink(c)}>
                  {c.dataset} · {c.configuration.label}
                </Link>
              </td>
              <td>{METRIC_LABELS[c.metric as keyof typeof METRIC_LABELS] ?? c.metric}</td>
              <td className="num">
                {c.kind === 'drift' && <span className="badge badge-info" data-testid="drift">drift</span>} {fmtPct(c.delta_pct)}
                {c.kind === 'drift' && c.parent && <span className="muted"> over {c.parent.sha.slice(0, 8)}…{c.commit.sha.slice(0, 8)}</span>}
              </td>
              <td>{interval(c)}</td>
              <td className="num">{c.q_value === null ? '—' : c.q_value.toExponential(1)}</td>
              <td title={c.state_reason ?? undefined}>
                {c.state}
                {c.reverted_by && (
                  <span className="badge badge-info" data-testid="reverted">
                    {' '}reverted at {c.reverted_by.sha.slice(0, 8)}
                  </span>
                )}
                {c.reverts && <span className="muted"> reverts {c.reverts.sha.slice(0, 8)}</span>}
                {c.attribution && (
                  <span
                    className={`badge ${c.attribution === 'code' ? 'badge-bad' : 'badge-info'}`}
                    data-testid="attribution"
                    title={`the instruction counts of the two commits say: ${c.attribution}`}
                  >
                    {' '}
                    {ATTRIBUTION_LABELS[c.attribution]}
                  </span>
                )}
              </td>
              <td title={c.status_reason ?? undefined}>
                {c.status}
                {c.status_by ? ` (${c.status_by})` : ''}
              </td>
              <td>
                <button type="button" className="btn btn-small" aria-expanded={open === c.id} onClick={() => setOpen(open === c.id ? null : c.id)}>
                  evidence
                </button>{' '}
                <StatusActions change={c} token={token} />
              </td>
            </tr>
            {open === c.id && (
              <tr>
                <td colSpan={8}>
                  <ChangeEvidence id={c.id} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
