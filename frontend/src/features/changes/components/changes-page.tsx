import { Fragment, useState } from 'react';
import { Link } from 'react-router';
import { useDimensions } from '@/api/get-dimensions';
import { CommitLink } from '@/components/commit-link';
import { CheckField, DeferredTextField, PageHeader, SelectField, TextField } from '@/components/ui/field';
import { Pager } from '@/components/ui/pager';
import { EmptyState, QueryView, Spinner } from '@/components/ui/states';
import { fmtDate, fmtPct, METRIC_LABELS } from '@/lib/format';
import { changeHistoryLink } from '@/lib/history-links';
import { loadToken } from '@/lib/token-storage';
import { bool, num, str, useUrlState } from '@/lib/url-state';
import type { Change, ChangeSummaryLine } from '@/types/api';
import { useChanges, type ChangesParams } from '../api/get-changes';
import { SUMMARY_PAGE, useChangeSummary } from '../api/get-change-summary';
import { useSetChangeStatus } from '../api/set-change-status';
import { useSetManyStatuses } from '../api/set-many-statuses';
import { ChangeEvidence } from './change-evidence';
import { bisectionText, groupLines, type CommitLines } from '../utils/group';

const changesSchema = {
  status: str('open'),
  direction: str(),
  tag: str(),
  commit: str(),
  all: bool(),
  dataset: str(),
  setting: str(),
  codec: str(),
  metric: str(),
  offset: num(0),
};
const STATUSES = ['open', 'acknowledged', 'fixed', 'ignored'];
const CODECS = ['zlib', 'lzma', 'lz4', 'zstd', 'memcpy'];
const NEEDS_TOKEN = 'needs a token: enter an API token in the Token field';

type Status = 'acknowledged' | 'fixed' | 'ignored' | 'open';
const ACTIONS: [Status, string][] = [
  ['acknowledged', 'acknowledge'],
  ['fixed', 'fixed'],
  ['ignored', 'ignore'],
  ['open', 'reopen'],
];

/** Status buttons; without a token they look disabled and say why. */
function StatusButtons({ token, pending, hide, onAct, error }: { token: string; pending: boolean; hide: (s: Status) => boolean; onAct: (s: Status) => void; error: Error | null }) {
  return (
    <span className="actions">
      {ACTIONS.filter(([s]) => !hide(s)).map(([s, label]) => (
        <Fragment key={s}>
          <button type="button" className="btn btn-small" disabled={!token || pending} title={token ? undefined : NEEDS_TOKEN} onClick={() => onAct(s)}>
            {label}
          </button>{' '}
        </Fragment>
      ))}
      {!token && <span className="muted hint" data-testid="needs-token">needs a token</span>}
      {error && <span className="error-text"> {error.message}</span>}
    </span>
  );
}

/** The reason for a status: required for fixed and ignored; null = cancelled. */
function askReason(status: Status, what: string): string | null {
  if (status !== 'fixed' && status !== 'ignored') return '';
  const reason = window.prompt(`Why ${what} ${status}?`);
  return reason && reason.trim() ? reason : null;
}

function StatusActions({ change, token }: { change: Change; token: string }) {
  const mutation = useSetChangeStatus();
  const act = (status: Status) => {
    const reason = askReason(status, 'is this change');
    if (reason === null) return;
    mutation.mutate({ id: change.id, body: { status, reason: reason || null }, token });
  };
  return <StatusButtons token={token} pending={mutation.isPending} hide={(s) => s === change.status || (s === 'open' && change.status === 'open')} onAct={act} error={mutation.error} />;
}

function BulkActions({ ids, token, what, testId }: { ids: number[]; token: string; what: string; testId: string }) {
  const mutation = useSetManyStatuses();
  const act = (status: Status) => {
    const reason = askReason(status, `are these ${ids.length} changes`);
    if (reason === null) return;
    mutation.mutate({ body: { change_ids: ids, status, reason: reason || null }, token });
  };
  return (
    <span className="bulk" data-testid={testId}>
      <span className="muted">{what}:</span> <StatusButtons token={token} pending={mutation.isPending} hide={(s) => s === 'open'} onAct={act} error={mutation.error} />
    </span>
  );
}

function interval(c: Change): string {
  if (c.kind === 'exact') return 'exact';
  if (c.ci_low_pct === null || c.ci_high_pct === null) return '—';
  return `${fmtPct(c.ci_low_pct)} … ${fmtPct(c.ci_high_pct)}`;
}

/** A speed change as its commits' instruction counts judge it (services/detection/counts.py). */
const ATTRIBUTION_LABELS: Record<NonNullable<Change['attribution']>, string> = {
  code: 'code',
  'probably the machine': 'machine?',
  'busy machine: not tested': 'busy',
};

/** The rows behind one summary line, fetched when it is expanded. */
function LineRows({ line, filter, token }: { line: ChangeSummaryLine; filter: ChangesParams; token: string }) {
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

function LineItem({ line, filter, token }: { line: ChangeSummaryLine; filter: ChangesParams; token: string }) {
  const [expanded, setExpanded] = useState(false);
  const statuses = Object.entries(line.statuses)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  return (
    <li className={`summary-line ${line.direction === 'regression' ? 'line-bad' : 'line-good'}`} data-testid="summary-line" data-direction={line.direction}>
      <button type="button" className="btn btn-small" aria-expanded={expanded} data-testid="line-expand" onClick={() => setExpanded(!expanded)}>
        {expanded ? '▾' : '▸'} rows
      </button>{' '}
      <span className="line-text">{line.line}</span> <span className="muted">({statuses})</span>{' '}
      <BulkActions ids={line.change_ids} token={token} what={`these ${line.changes}`} testId="line-actions" />
      {expanded && <LineRows line={line} filter={filter} token={token} />}
    </li>
  );
}

function CommitCard({ group, filter, token }: { group: CommitLines; filter: ChangesParams; token: string }) {
  const bisection = bisectionText(group.bisection);
  return (
    <section className="card change-group" data-testid="change-group">
      <h3>
        <CommitLink sha={group.commit.sha} url={group.commit.url} /> {group.commit.message ?? ''}
      </h3>
      <p className="muted">
        {group.commit.author ?? 'unknown author'} · {fmtDate(group.commit.date)} · on <b>{group.machine.tag}</b> ({group.machine.name} v{group.machine.version})
      </p>
      {bisection && <p data-testid="bisection">{bisection}</p>}
      <p>
        <BulkActions ids={group.changeIds} token={token} what={`all ${group.changeIds.length} changes shown for this commit`} testId="commit-actions" />
      </p>
      <ul className="summary-lines">
        {group.lines.map((line) => (
          <LineItem key={`${line.codec}|${line.metric}|${line.direction}`} line={line} filter={filter} token={token} />
        ))}
      </ul>
    </section>
  );
}

export function ChangesPage() {
  const [state, set] = useUrlState(changesSchema);
  const [token, setToken] = useState(loadToken);
  const dims = useDimensions();
  const filter: ChangesParams = {
    status: state.status === 'any' ? undefined : state.status || undefined,
    direction: state.direction || undefined,
    tag: state.tag || undefined,
    commit: state.commit || undefined,
    include_unconfirmed: state.all || undefined,
    dataset: state.dataset || undefined,
    setting: /^\d+$/.test(state.setting) ? Number(state.setting) : undefined,
    codec: state.codec || undefined,
    metric: state.metric || undefined,
  };
  const summary = useChangeSummary({ ...filter, offset: state.offset || undefined });
  const tags = dims.data?.tags ?? [];
  const pick = (patch: Partial<typeof state>) => set({ ...patch, offset: 0 });
  return (
    <>
      <PageHeader title="Changes">
        Confirmed changes, newest commit first, one line per commit and cause: sizes are exact, speeds are confirmed by interleaved reruns and
        controlled for false discoveries across all series of a commit. Expand a line for its rows.
      </PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="changes filter">
        <SelectField name="status" label="Status" value={state.status} options={[...STATUSES, 'any'].map((s) => ({ value: s }))} onChange={(v) => pick({ status: v })} />
        <SelectField name="direction" label="Direction" value={state.direction} allowEmpty="both" options={[{ value: 'regression' }, { value: 'improvement' }]} onChange={(v) => pick({ direction: v })} />
        <SelectField name="tag" label="Tag" value={state.tag} allowEmpty="all" options={tags.map((t) => ({ value: t }))} onChange={(v) => pick({ tag: v })} />
        <SelectField name="dataset" label="Dataset" value={state.dataset} allowEmpty="all" options={(dims.data?.datasets ?? []).map((v) => ({ value: v }))} onChange={(v) => pick({ dataset: v })} />
        <SelectField name="codec" label="Codec" value={state.codec} allowEmpty="all" options={CODECS.map((v) => ({ value: v }))} onChange={(v) => pick({ codec: v })} />
        <DeferredTextField name="setting" label="Setting" value={state.setting} placeholder="e.g. 505" onCommit={(v) => pick({ setting: v })} />
        <SelectField name="metric" label="Metric" value={state.metric} allowEmpty="all" options={Object.entries(METRIC_LABELS).map(([value, label]) => ({ value, label }))} onChange={(v) => pick({ metric: v })} />
        <CheckField name="all" label="also unconfirmed" checked={state.all} onChange={(v) => pick({ all: v })} />
        <TextField name="token" label="Token (status changes)" value={token} onChange={setToken} />
      </form>
      <QueryView query={summary} loadingLabel="Loading changes…">
        {(page) => {
          const groups = groupLines(page.items);
          return groups.length === 0 ? (
            <EmptyState>No changes with these filters: nothing moved, or everything is handled.</EmptyState>
          ) : (
            <div data-testid="changes-inbox">
              <Pager testId="changes-pager" offset={page.offset} count={page.items.length} total={page.total} onPage={(d) => set({ offset: Math.max(0, page.offset + d * SUMMARY_PAGE) })} />
              <p className="muted" data-testid="changes-total">
                {page.changes} changes in {page.total} lines
              </p>
              {groups.map((g) => (
                <CommitCard key={g.key} group={g} filter={filter} token={token} />
              ))}
            </div>
          );
        }}
      </QueryView>
    </>
  );
}
