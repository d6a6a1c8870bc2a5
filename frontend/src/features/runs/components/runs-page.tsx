import { fmtCodecs } from '@/lib/codecs';
import { Link } from 'react-router';
import { useDimensions } from '@/api/get-dimensions';
import { CommitLink } from '@/components/commit-link';
import { DataTable, type Column } from '@/components/ui/data-table';
import { PageHeader, ProgressBar, SelectField } from '@/components/ui/field';
import { EmptyState, QueryView } from '@/components/ui/states';
import { fmtAge } from '@/lib/format';
import { num, str, useUrlState } from '@/lib/url-state';
import { Pager } from '@/components/ui/pager';
import { SpeedExclusionNotes } from '@/components/speed-exclusions';
import type { Queue, Run, WorkerTag } from '@/types/api';
import { useQueues, useRuns, useWorkerTags } from '../api/get-runs';
import { TriggerForm } from './trigger-form';

const runsSchema = { status: str(), tag: str(), sort: str('-id'), page: num(0) };
const PAGE_SIZE = 50;
const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

function QueueSummary({ queues }: { queues: readonly Queue[] }) {
  return (
    <div className="queue-grid" data-testid="queues">
      {queues.map((q) => (
        <section key={q.tag} className="card queue" data-tag={q.tag}>
          <h3>{q.tag}</h3>
          <p>
            <span className="badge" data-count="queued">{q.counts.queued ?? 0} queued</span>{' '}
            <span className="badge badge-info" data-count="running">{q.counts.running ?? 0} running</span>{' '}
            <span className="badge badge-bad" data-count="failed">{q.counts.failed ?? 0} failed</span>
          </p>
          {q.running.map((r) => (
            <div key={r.id} className="queue-run">
              <span>
                #{r.id} <CommitLink sha={r.commit} repository={r.repository} /> {r.stage ?? ''}
              </span>
              <ProgressBar value={r.progress ?? 0} label={`run ${r.id} progress`} />
            </div>
          ))}
        </section>
      ))}
    </div>
  );
}

/** Tags whose queued runs no worker takes: the reaper expires them (catalog/worker_tags.py). */
function WorkerTagNotes({ tags }: { tags: readonly WorkerTag[] }) {
  const notes = tags.filter((t) => t.note);
  if (notes.length === 0) return null;
  return (
    <section className="card" role="status" data-testid="worker-tag-notes">
      <h2>Tags without a live worker</h2>
      <ul>
        {notes.map((t) => (
          <li key={t.tag} data-worker-tag={t.tag}>
            {t.note}
            {t.gets_runs ? '' : ' (new commits get no runs for it)'}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function RunsPage() {
  const [state, set] = useUrlState(runsSchema);
  const dims = useDimensions();
  const runs = useRuns({
    status: state.status || undefined,
    tag: state.tag || undefined,
    sort: state.sort,
    limit: PAGE_SIZE,
    offset: state.page * PAGE_SIZE,
  });
  const queues = useQueues();
  const workerTags = useWorkerTags();
  const tags = dims.data?.tags ?? [];

  const columns: Column<Run>[] = [
    { key: 'id', header: '#', value: (r) => r.id, numeric: true },
    { key: 'commit', header: 'commit', value: (r) => r.commit, render: (r) => <CommitLink sha={r.commit} repository={r.repository} /> },
    { key: 'tag', header: 'tag', value: (r) => r.tag },
    { key: 'machine', header: 'machine', value: (r) => r.machine },
    { key: 'status', header: 'status', value: (r) => r.status, render: (r) => <span className={`status status-${r.status}`}>{r.status}</span> },
    {
      key: 'stage',
      header: 'stage',
      value: (r) => r.stage,
      // an expired run's reason is its log line
      render: (r) => (r.stage === 'expired' ? <span title={r.log_tail ?? ''}>expired</span> : r.stage),
    },
    { key: 'progress', header: 'progress', value: (r) => r.progress, render: (r) => <ProgressBar value={r.progress ?? (r.status === 'succeeded' ? 1 : 0)} /> },
    {
      key: 'trigger',
      header: 'trigger',
      value: (r) => r.trigger,
      render: (r) =>
        r.change_commit && (r.change_ids ?? []).length > 0 ? (
          <span>
            {r.trigger}:{' '}
            <Link to={`/changes?commit=${r.change_commit}&all=1&status=any`} data-testid="run-cause">
              {(r.change_ids ?? []).length} change{(r.change_ids ?? []).length === 1 ? '' : 's'} at {r.change_commit.slice(0, 10)}
            </Link>
          </span>
        ) : (
          r.trigger
        ),
    },
    { key: 'created_at', header: 'queued', value: (r) => r.created_at, render: (r) => fmtAge(r.created_at) },
    {
      key: 'result_count',
      header: 'results',
      value: (r) => r.result_count,
      numeric: true,
      // a run whose speeds detection left out says so, and why (its title)
      render: (r) =>
        r.speed_excluded ? (
          <span>
            {r.result_count}{' '}
            <span className="badge badge-bad" title={r.speed_excluded} data-testid="speed-excluded">
              speeds left out
            </span>
          </span>
        ) : (
          r.result_count
        ),
    },
    {
      key: 'codecs',
      header: 'codecs',
      value: (r) => r.codec_set?.set ?? r.codecs ?? null,
      render: (r) => <span title={r.codec_set ? fmtCodecs(r.codec_set) : 'not measured yet'}>{r.codec_set?.set ?? r.codecs ?? '—'}</span>,
    },
  ];

  return (
    <>
      <PageHeader title="Runs">Queues per hardware tag and live status (refreshes every 3 s while runs are active).</PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="runs filter">
        <SelectField name="status" label="Status" value={state.status} allowEmpty="all" options={STATUSES.map((s) => ({ value: s }))} onChange={(v) => set({ status: v, page: 0 })} />
        <SelectField name="tag" label="Tag" value={state.tag} allowEmpty="all" options={tags.map((t) => ({ value: t }))} onChange={(v) => set({ tag: v, page: 0 })} />
      </form>
      <WorkerTagNotes tags={workerTags.data ?? []} />
      <SpeedExclusionNotes tag={state.tag || undefined} />
      <QueryView query={runs} loadingLabel="Loading runs…">
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState>
              No runs yet: trigger one below, point a GitHub webhook at <code>/api/v1/webhooks/github</code>, or run{' '}
              <code>make demo</code>.
            </EmptyState>
          ) : (
            <>
              <QueueSummary queues={queues.data ?? []} />
              <Pager testId="runs-count" offset={page.offset} count={page.items.length} total={page.total} onPage={(d) => set({ page: state.page + d })} />
              <DataTable testId="runs-table" columns={columns} rows={page.items} sort={state.sort} serverSorted
                onSort={(sort) => set({ sort, page: 0 }, { replace: true })} rowKey={(r) => String(r.id)}
                rowClass={(r) => (r.status === 'failed' ? 'row-regression' : undefined)} />
              {page.items.some((r) => r.stage === 'expired') && (
                <section className="failures" data-testid="expired-runs">
                  <h2>Expired</h2>
                  <ul>
                    {page.items
                      .filter((r) => r.stage === 'expired')
                      .map((r) => (
                        <li key={r.id}>
                          #{r.id} <CommitLink sha={r.commit} repository={r.repository} /> on {r.tag}: {r.log_tail?.trim() || 'expired'}
                        </li>
                      ))}
                  </ul>
                </section>
              )}
              {page.items.some((r) => r.status === 'failed') && (
                <section className="failures">
                  <h2>Failures</h2>
                  {page.items
                    .filter((r) => r.status === 'failed')
                    .map((r) => (
                      <details key={r.id} className="card">
                        <summary>
                          #{r.id} <CommitLink sha={r.commit} repository={r.repository} /> on {r.tag} ({r.stage ?? 'unknown stage'}, attempt {r.attempts}){' '}
                          <Link to={`/compare?head=${r.commit}`}>compare</Link>
                        </summary>
                        <pre className="log-tail">{r.log_tail || '(no log captured)'}</pre>
                      </details>
                    ))}
                </section>
              )}
            </>
          )
        }
      </QueryView>
      <TriggerForm tags={tags} repositories={['root-project/root']} />
    </>
  );
}
