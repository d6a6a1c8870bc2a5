import { Fragment, useState } from 'react';
import { Link } from 'react-router';
import { useDimensions } from '@/api/get-dimensions';
import { CommitLink } from '@/components/commit-link';
import { CheckField, PageHeader, SelectField, TextField } from '@/components/ui/field';
import { EmptyState, QueryView } from '@/components/ui/states';
import { fmtDate, fmtPct, METRIC_LABELS } from '@/lib/format';
import { bool, str, useUrlState } from '@/lib/url-state';
import type { Change } from '@/types/api';
import { useChanges } from '../api/get-changes';
import { useSetChangeStatus } from '../api/set-change-status';
import { ChangeEvidence } from './change-evidence';
import { bisectionText, groupByCommit, historyLink, type ChangeGroup } from '../utils/group';

const changesSchema = { status: str('open'), direction: str(), tag: str(), commit: str(), all: bool() };
const STATUSES = ['open', 'acknowledged', 'fixed', 'ignored'];
const TOKEN_KEY = 'basketbench.token'; // the same key the Runs page remembers a token under

function storedToken(): string {
  try {
    return localStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

function StatusActions({ change, token }: { change: Change; token: string }) {
  const mutation = useSetChangeStatus();
  const act = (status: 'acknowledged' | 'fixed' | 'ignored' | 'open') => {
    let reason: string | null = null;
    if (status === 'fixed' || status === 'ignored') {
      reason = window.prompt(`Why is this change ${status}?`);
      if (!reason) return;
    }
    mutation.mutate({ id: change.id, body: { status, reason }, token });
  };
  return (
    <span className="actions">
      {change.status !== 'acknowledged' && (
        <button type="button" className="btn btn-small" disabled={!token || mutation.isPending} onClick={() => act('acknowledged')}>
          acknowledge
        </button>
      )}{' '}
      {change.status !== 'fixed' && (
        <button type="button" className="btn btn-small" disabled={!token || mutation.isPending} onClick={() => act('fixed')}>
          fixed
        </button>
      )}{' '}
      {change.status !== 'ignored' && (
        <button type="button" className="btn btn-small" disabled={!token || mutation.isPending} onClick={() => act('ignored')}>
          ignore
        </button>
      )}{' '}
      {change.status !== 'open' && (
        <button type="button" className="btn btn-small" disabled={!token || mutation.isPending} onClick={() => act('open')}>
          reopen
        </button>
      )}
      {mutation.error && <span className="error-text"> {mutation.error.message}</span>}
    </span>
  );
}

function interval(c: Change): string {
  if (c.kind === 'exact') return 'exact';
  if (c.ci_low_pct === null || c.ci_high_pct === null) return '—';
  return `${fmtPct(c.ci_low_pct)} … ${fmtPct(c.ci_high_pct)}`;
}

function GroupCard({ group, token }: { group: ChangeGroup; token: string }) {
  const [open, setOpen] = useState<number | null>(null);
  const bisection = group.changes.map((c) => bisectionText(c.bisection)).find((t) => t !== null) ?? null;
  const parent = group.changes[0]?.parent ?? null;
  return (
    <section className="card change-group" data-testid="change-group">
      <h3>
        <CommitLink sha={group.commit.sha} url={group.commit.url} /> {group.commit.message ?? ''}
      </h3>
      <p className="muted">
        {group.commit.author ?? 'unknown author'} · {fmtDate(group.commit.date)} · on <b>{group.machine.tag}</b> ({group.machine.name} v
        {group.machine.version}) ·{' '}
        <span className="badge badge-bad">{group.regressions} regression(s)</span>{' '}
        <span className="badge badge-info">{group.improvements} improvement(s)</span>
        {parent && (
          <>
            {' '}
            · previous measured commit <CommitLink sha={parent.sha} url={parent.url} />
          </>
        )}
      </p>
      {bisection && <p data-testid="bisection">{bisection}</p>}
      <table className="table">
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
          {group.changes.map((c) => (
            <Fragment key={c.id}>
            <tr className={c.direction === 'regression' ? 'row-bad' : 'row-good'} data-testid="change-row" data-status={c.status}>
              <td>
                <Link to={historyLink(c)}>
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
    </section>
  );
}

export function ChangesPage() {
  const [state, set] = useUrlState(changesSchema);
  const [token, setToken] = useState(storedToken);
  const dims = useDimensions();
  const changes = useChanges({
    status: state.status === 'any' ? undefined : state.status || undefined,
    direction: state.direction || undefined,
    tag: state.tag || undefined,
    commit: state.commit || undefined,
    include_unconfirmed: state.all || undefined,
    limit: 1000,
  });
  const tags = dims.data?.tags ?? [];
  return (
    <>
      <PageHeader title="Changes">
        Confirmed changes, newest commit first: sizes are exact, speeds are confirmed by interleaved reruns and controlled
        for false discoveries across all series of a commit.
      </PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="changes filter">
        <SelectField name="status" label="Status" value={state.status} options={[...STATUSES, 'any'].map((s) => ({ value: s }))} onChange={(v) => set({ status: v })} />
        <SelectField
          name="direction"
          label="Direction"
          value={state.direction}
          allowEmpty="both"
          options={[{ value: 'regression' }, { value: 'improvement' }]}
          onChange={(v) => set({ direction: v })}
        />
        <SelectField name="tag" label="Tag" value={state.tag} allowEmpty="all" options={tags.map((t) => ({ value: t }))} onChange={(v) => set({ tag: v })} />
        <CheckField name="all" label="also unconfirmed" checked={state.all} onChange={(v) => set({ all: v })} />
        <TextField name="token" label="Token (status changes)" value={token} onChange={setToken} />
      </form>
      <QueryView query={changes} loadingLabel="Loading changes…">
        {(page) => {
          const groups = groupByCommit(page.items);
          return groups.length === 0 ? (
            <EmptyState>No changes with these filters: nothing moved, or everything is handled.</EmptyState>
          ) : (
            <div data-testid="changes-inbox">
              {groups.map((g) => (
                <GroupCard key={g.key} group={g} token={token} />
              ))}
            </div>
          );
        }}
      </QueryView>
    </>
  );
}
