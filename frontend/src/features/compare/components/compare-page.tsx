import { useEffect } from 'react';
import { Link } from 'react-router';
import { useCommit } from '@/api/get-commit';
import { useCommits, latestCommit } from '@/api/get-commits';
import { useCodecSeries } from '@/api/get-codec-series';
import { CommitLink } from '@/components/commit-link';
import { CodecSeriesSelect } from '@/components/ui/codec-series-select';
import { fmtCodecs, seriesLabel, seriesName } from '@/lib/codecs';
import { useDimensions } from '@/api/get-dimensions';
import { DataTable, type Column } from '@/components/ui/data-table';
import { CheckField, DeferredTextField, PageHeader, SelectField } from '@/components/ui/field';
import { CommitSelect } from '@/components/ui/commit-select';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { downloadText, toCsv } from '@/lib/csv';
import { fmtNumber, fmtPct, METRIC_LABELS, shortSha } from '@/lib/format';
import { compareRowHistoryLink } from '@/lib/history-links';
import { useUrlState } from '@/lib/url-state';
import { toQuery } from '@/lib/api-client';
import type { CodecSet, CompareRow, CompareRule } from '@/types/api';
import { COMPARE_PAGE, useCompare, type CompareParams } from '../api/get-compare';
import { compareSchema } from './compare-state';
import { selectionProblem } from '../utils/selection';
import { Pager } from '@/components/ui/pager';
import { defaultPair } from '../utils/defaults';

/** Exact bytes when the server has them (merged size rows), else the rounded value. */
function fmtValue(v: number | null, bytes: number | null | undefined): string {
  return bytes !== null && bytes !== undefined ? `${bytes.toLocaleString('en-US')} B` : fmtNumber(v);
}

function fmtDeltaBytes(d: number | null | undefined): string {
  if (d === null || d === undefined) return '';
  return `${d > 0 ? '+' : ''}${d.toLocaleString('en-US')} B`;
}

function fmtRatios(b: number | null | undefined, h: number | null | undefined): string {
  if (b === null || b === undefined || h === null || h === undefined) return '';
  return `${b.toFixed(4)} → ${h.toFixed(4)}`;
}

/** The rule that decided the verdicts, as the server applied it. */
function CompareRuleText({ rule }: { rule: CompareRule }) {
  return (
    <div className="muted compare-rule" data-testid="compare-rule">
      <p>
        Sizes: {rule.sizes}. Speeds: {rule.speed_test}; rows with |Δ| below {rule.min_effect_pct} %
        {Object.keys(rule.min_effect_patterns ?? {}).length > 0 && ' (or their series’ own minimum)'} are not tested; {rule.multiple_testing}.
      </p>
      {rule.note && (
        <p className="state state-warning" role="status" data-testid="compare-rule-note">
          {rule.note}
        </p>
      )}
    </div>
  );
}

export function ComparePage() {
  const [state, set] = useUrlState(compareSchema);
  const dims = useDimensions();
  // Defaults only (the two newest); the pickers search the whole history themselves.
  const commits = useCommits({ limit: 2 });
  const headCommit = useCommit(state.kind === 'commits' ? state.head : '');
  const baseCommit = useCommit(state.kind === 'commits' ? state.base : '');
  // The machine's codec series: defaults (two commits of one series) and suggestions.
  const machine = state.kind === 'commits' ? state.machine || dims.data?.machines[0] || '' : '';
  const machineSeries = useCodecSeries(machine);

  // Fill what a bare link leaves open: parent of head, latest commit, first machines.
  useEffect(() => {
    if (state.kind === 'commits' && state.head && !state.base && headCommit.data?.parents?.[0]) {
      set({ base: headCommit.data.parents[0] }, { replace: true });
    }
  }, [state.kind, state.head, state.base, headCommit.data, set]);
  useEffect(() => {
    if (!dims.data || !commits.data) return;
    const machines = dims.data.machines;
    if (state.kind === 'commits' && !state.head) {
      // base and head within one codec series (after `make demo`: the two ROOT releases)
      if (machine && machineSeries.isPending) return;
      const pair = defaultPair(machineSeries.data ?? [], commits.data.items);
      if (pair) set({ head: pair.head, base: pair.base, machine }, { replace: true });
    } else if (state.kind === 'commits' && !state.machine && machines[0]) {
      set({ machine: machines[0] }, { replace: true });
    } else if (state.kind === 'machines' && (!state.base || !state.head || !state.commit)) {
      set(
        {
          base: state.base || machines[0] || '',
          head: state.head || machines[1] || machines[0] || '',
          commit: state.commit || latestCommit(commits.data.items)?.sha || '',
        },
        { replace: true },
      );
    }
  }, [dims.data, commits.data, machine, machineSeries.isPending, machineSeries.data, state.kind, state.head, state.base, state.machine, state.commit, set]);

  const settingNumber = /^\d+$/.test(state.setting) ? Number(state.setting) : undefined;
  const view = { setting: settingNumber, only_significant: state.only || undefined, offset: state.offset || undefined };
  const params: CompareParams =
    state.kind === 'machines'
      ? { kind: 'machines', base_machine: state.base, head_machine: state.head, commit: state.commit, dataset: state.dataset || undefined, metric: state.metric || undefined, codecs: state.codecs || undefined, ...view }
      : { kind: 'commits', base_commit: state.base, head_commit: state.head, machine: state.machine, dataset: state.dataset || undefined, metric: state.metric || undefined, codecs: state.codecs || undefined, ...view };
  const compare = useCompare(params);

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
  const machineOpts = d.machines.map((m) => ({ value: m }));
  const historyMachine = state.kind === 'machines' ? state.head : state.machine;

  // The server filters (setting, significant only), orders and pages: these are the page's rows.
  const rows = compare.data?.rows ?? [];
  const columns: Column<CompareRow>[] = [
    { key: 'dataset', header: 'dataset', value: (r) => r.dataset },
    { key: 'configuration', header: 'configuration', value: (r) => r.configuration.label },
    { key: 'metric', header: 'metric', value: (r) => r.metric, render: (r) => METRIC_LABELS[r.metric] ?? r.metric, optional: true },
    { key: 'base', header: 'base', value: (r) => r.base, render: (r) => fmtValue(r.base, r.base_bytes), numeric: true },
    { key: 'head', header: 'head', value: (r) => r.head, render: (r) => fmtValue(r.head, r.head_bytes), numeric: true },
    { key: 'delta_pct', header: 'Δ', value: (r) => r.delta_pct, render: (r) => fmtPct(r.delta_pct), numeric: true },
    { key: 'delta_bytes', header: 'byte change', value: (r) => r.delta_bytes, render: (r) => fmtDeltaBytes(r.delta_bytes), numeric: true, optional: true },
    { key: 'ratio', header: 'ratio', value: (r) => r.head_ratio, render: (r) => fmtRatios(r.base_ratio, r.head_ratio), numeric: true, optional: true },
    { key: 'p_value', header: 'p', value: (r) => r.p_value, render: (r) => (r.p_value === null ? '—' : r.p_value.toExponential(1)), numeric: true, optional: true },
    {
      key: 'significant',
      header: 'verdict',
      value: (r) => (r.regression ? 2 : r.significant ? 1 : 0),
      render: (r) => (r.regression ? 'regression' : r.significant ? 'improvement' : 'no change'),
    },
    { key: 'history', header: 'history', value: () => null, render: (r) => <Link to={compareRowHistoryLink(r, historyMachine)}>history</Link> },
  ];
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
        Per-series deltas (head vs base): exact size changes first, then significant speed changes, each by effect, then the rest.
      </PageHeader>
      {rule && <CompareRuleText rule={rule} />}
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="compare selection">
        <SelectField name="kind" label="Compare" value={state.kind}
          options={[{ value: 'commits', label: 'two commits' }, { value: 'machines', label: 'two machines' }]}
          onChange={(v) => set({ kind: v, base: '', head: '', codecs: '' })} />
        {state.kind === 'commits' ? (
          <>
            <CommitSelect name="base" label="Base commit" value={state.base} onChange={(v) => set({ base: v, codecs: '' })} />
            <CommitSelect name="head" label="Head commit" value={state.head} onChange={(v) => set({ head: v, codecs: '' })} />
            <SelectField name="machine" label="Machine" value={state.machine} options={machineOpts} onChange={(v) => set({ machine: v, codecs: '' })} />
          </>
        ) : (
          <>
            <SelectField name="base" label="Base machine" value={state.base} options={machineOpts} onChange={(v) => set({ base: v, codecs: '' })} />
            <SelectField name="head" label="Head machine" value={state.head} options={machineOpts} onChange={(v) => set({ head: v, codecs: '' })} />
            <CommitSelect name="commit" label="Commit" value={state.commit} onChange={(v) => set({ commit: v, codecs: '' })} />
          </>
        )}
        <CodecSeriesSelect value={state.codecs} series={common} emptyLabel="the newest series both sides have" onChange={(v) => set({ codecs: v , offset: 0 })} />
        <SelectField name="dataset" label="Dataset" value={state.dataset} allowEmpty="all" options={d.datasets.map((v) => ({ value: v }))} onChange={(v) => set({ dataset: v , offset: 0 })} />
        <SelectField name="metric" label="Metric" value={state.metric} allowEmpty="all"
          options={Object.entries(METRIC_LABELS).map(([value, label]) => ({ value, label }))} onChange={(v) => set({ metric: v , offset: 0 })} />
        <DeferredTextField name="setting" label="Setting" value={state.setting} placeholder="e.g. 505" onCommit={(v) => set({ setting: v , offset: 0 })} />
        <CheckField name="only" label="significant only" checked={state.only} onChange={(v) => set({ only: v , offset: 0 })} />
      </form>
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
            <button type="button" className="btn btn-small" onClick={() => downloadText(`compare-${baseLabel}-${headLabel}.csv`, toCsv(
              ['kind', 'base_ref', 'head_ref', state.kind === 'machines' ? 'commit' : 'machine', 'dataset', 'configuration', 'metric', 'base', 'head', 'delta_pct', 'delta_bytes', 'base_ratio', 'head_ratio', 'p_value', 'q_value', 'significant', 'regression'],
              rows.map((r) => [state.kind, state.base, state.head, state.kind === 'machines' ? state.commit : state.machine, r.dataset, r.configuration.label, r.metric, r.base, r.head, r.delta_pct, r.delta_bytes ?? null, r.base_ratio ?? null, r.head_ratio ?? null, r.p_value, r.q_value ?? null, r.significant, r.regression]),
            ))}>CSV</button>
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
