import { Link } from 'react-router';
import { CommitLink } from '@/components/commit-link';
import { DataTable } from '@/components/ui/data-table';
import { PageHeader } from '@/components/ui/field';
import { Pager } from '@/components/ui/pager';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { toQuery } from '@/lib/api-client';
import { fmtCodecs, seriesLabel, seriesName } from '@/lib/codecs';
import { downloadText, toCsv } from '@/lib/csv';
import { shortSha } from '@/lib/format';
import type { CodecSet } from '@/types/api';
import { COMPARE_PAGE } from '../api/get-compare';
import { useCompareData } from '../hooks/use-compare-data';
import { compareCsvHeader, compareCsvRows } from '../utils/csv';
import { selectionProblem } from '../utils/selection';
import { AbPanel } from './ab-panel';
import { compareColumns } from './compare-columns';
import { CompareControls } from './compare-controls';
import { CompareRuleText } from './compare-rule';

export function ComparePage() {
  const { state, set, dims, commits, headCommit, baseCommit, machineSeries, compare } = useCompareData();

  if (dims.isPending || commits.isPending) return <Spinner label="Loading dimensions…" />;
  if (dims.error) return <ErrorState error={dims.error} retry={() => void dims.refetch()} />;
  if (commits.error) return <ErrorState error={commits.error} retry={() => void commits.refetch()} />;
  if (dims.data.machines.length === 0) {
    return (
      <>
        <PageHeader title="Compare" />
        <EmptyState>{NO_RESULTS_HINT}</EmptyState>
      </>
    );
  }
  const d = dims.data;
  const historyMachine = state.kind === 'machines' ? state.head : state.machine;

  // The server filters (setting, significant only), orders and pages: these are the page's rows.
  const rows = compare.data?.rows ?? [];
  const columns = compareColumns(historyMachine, compare.data?.ab, state.kind === 'machines');
  const counts = compare.data?.counts ?? { regressions: 0, improvements: 0, rows: 0 };
  const rule = compare.data?.rule;
  const problem = selectionProblem({ kind: state.kind, base: state.base, head: state.head, commitCount: commits.data.total });
  const unknownCommit = [
    ['Head', state.head, headCommit.error],
    ['Base', state.base, baseCommit.error],
  ].find(([, , e]) => e) as [string, string, unknown] | undefined;
  const [baseLabel, headLabel] = state.kind === 'machines' ? [state.base, state.head] : [shortSha(state.base), shortSha(state.head)];
  const common = compare.data?.codec_series ?? [];
  const sides = compare.data ? [compare.data.base.codecs ?? null, compare.data.head.codecs ?? null] : [];
  // No codec series in common: each side shows its own, and a table would mix a codec
  // library change with a change of ROOT.
  const noCommon = compare.data !== undefined && common.length === 0 && sides.some(Boolean) && sides[0]?.series_key !== sides[1]?.series_key;
  const within = (machineSeries.data ?? []).filter((s) => (s.latest_commits ?? []).length >= 2);
  const sideSeries = (c: CodecSet | null | undefined) => (c ? `${seriesName(c)} codec series (${fmtCodecs(c)})` : 'results without recorded codec versions');
  const sideRef = (side: 'base' | 'head') =>
    state.kind === 'machines' ? <code>{side === 'base' ? state.base : state.head}</code> : <CommitLink sha={side === 'base' ? state.base : state.head} />;

  return (
    <>
      <PageHeader title="Compare">
        Per-series deltas (head vs base): exact size changes first, then speed changes that an interleaved A/B or instruction counts back, each by
        effect, then the rest. Two runs measured at different times get no speed verdict.
      </PageHeader>
      {rule && <CompareRuleText rule={rule} />}
      <CompareControls state={state} set={set} dims={d} common={common} />
      {unknownCommit ? (
        <div role="alert" className="state state-error" data-testid="unknown-commit">
          {unknownCommit[0]} commit <code>{unknownCommit[1]}</code> is not known to the server ({String((unknownCommit[2] as Error).message ?? unknownCommit[2])}):
          choose one in the picker, which searches by sha prefix, message and author.
        </div>
      ) : (
        problem && <EmptyState>{problem}</EmptyState>
      )}
      {!problem && !unknownCommit && compare.isLoading && <Spinner label="Comparing…" />}
      {!problem && !unknownCommit && compare.error && <ErrorState error={compare.error} retry={() => void compare.refetch()} />}
      {!problem && !unknownCommit && compare.data && noCommon && (
        <div role="alert" className="state state-error" data-testid="no-common-series">
          <p>
            No codec series in common: base {sideRef('base')} was measured in the {sideSeries(compare.data.base.codecs)}, head{' '}
            {sideRef('head')} in the {sideSeries(compare.data.head.codecs)}, and neither in the other’s series. A comparison
            across codec series would mix a codec library change with a change of ROOT, so none is shown.
          </p>
          {state.kind === 'commits' && within.length > 0 && (
            <p>
              Compare within one series instead:{' '}
              {within.map((s, i) => (
                <span key={s.series_key}>
                  {i > 0 && ' · '}
                  <Link to={`/compare${toQuery({ base: s.latest_commits?.[1], head: s.latest_commits?.[0], machine: state.machine, dataset: state.dataset, metric: state.metric })}`}>
                    its two newest commits in {seriesLabel(s)}
                  </Link>
                </span>
              ))}
            </p>
          )}
        </div>
      )}
      {!problem && !unknownCommit && compare.data && !noCommon && (
        <>
          <p className="muted" data-testid="compare-codecs">
            Both sides in one codec series ({compare.data.head.codecs ? seriesName(compare.data.head.codecs) : 'versions not recorded'}). Base:{' '}
            {fmtCodecs(compare.data.base.codecs)}. Head: {fmtCodecs(compare.data.head.codecs)}.
          </p>
          {state.kind === 'commits' && <AbPanel data={compare.data} machine={state.machine} base={state.base} head={state.head} />}
          <p className="summary" data-testid="compare-summary">
            <span className="badge badge-bad">{counts.regressions} regressions</span>{' '}
            <span className="badge badge-good">{counts.improvements} improvements</span>
            <span>
              {counts.rows} rows ({state.only ? 'significant only, ' : ''}size and ratio in one row per series)
              {state.setting && ` (setting ${state.setting})`}: base {sideRef('base')}, head {sideRef('head')}
              {state.kind === 'machines' ? (
                <>
                  {' '}at <CommitLink sha={state.commit} />
                </>
              ) : (
                ` on ${state.machine}`
              )}
            </span>
            <button type="button" className="btn btn-small" onClick={() => downloadText(`compare-${baseLabel}-${headLabel}.csv`, toCsv(compareCsvHeader(state.kind), compareCsvRows(state, rows)))}>CSV</button>
          </p>
          {rows.length === 0 ? (
            <EmptyState>
              Nothing to compare for this selection: both sides need results for the same series. Check the{' '}
              <Link to="/configurations">configurations</Link> measured on each side.
            </EmptyState>
          ) : (
            <>
              <Pager testId="compare-pager" offset={compare.data.offset ?? 0} count={rows.length} total={compare.data.total ?? rows.length}
                onPage={(d) => set({ offset: Math.max(0, (compare.data?.offset ?? 0) + d * COMPARE_PAGE) })} />
              {state.sort && <p className="muted">Sorted by a column within this page; clear the sort for the decided order over every row.</p>}
              <DataTable
                testId="compare-table"
                columns={columns}
                rows={rows}
                sort={state.sort}
                serverSorted={!state.sort}
                onSort={(sort) => set({ sort }, { replace: true })}
                rowKey={(r) => `${r.dataset}|${r.configuration.id}|${r.metric}`}
                rowClass={(r) => (r.regression ? 'row-regression' : r.significant ? 'row-improvement' : undefined)}
              />
            </>
          )}
        </>
      )}
    </>
  );
}
