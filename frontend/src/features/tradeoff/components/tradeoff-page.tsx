import { plotText } from '@/lib/plot-text';
import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useCommits, latestCommit } from '@/api/get-commits';
import { useDimensions } from '@/api/get-dimensions';
import { PageHeader } from '@/components/ui/field';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { shortSha, settingLabel } from '@/lib/format';
import { Plot } from '@/lib/plot';
import { toQuery } from '@/lib/api-client';
import { cleanList, useUrlState, type StateOf } from '@/lib/url-state';
import { datasetKindLabel } from '@/lib/dataset-kind';
import type { Tradeoff } from '@/types/api';
import { useTradeoffs, type TradeoffParams } from '@/api/get-tradeoff';
import { CommitLink } from '@/components/commit-link';
import { fmtCodecs, unionSeries } from '@/lib/codecs';
import { axisRange, axisRangeOf, formatRange, parseRange } from '@/lib/zoom';
import { relativeTo, speedAxis, toPlotPoint, type PlotPoint } from '../utils/relative';
import { buildTraces, clickedPoint, type ClickedPoint, type MachineSeries, type SpeedKey } from '../utils/traces';
import { TradeoffPointDetails } from './point-details';
import { TradeoffControls } from './tradeoff-controls';
import { tradeoffSchema } from './tradeoff-state';

type State = StateOf<typeof tradeoffSchema>;

function paramsFor(state: State, commit: string, machine: string, dataset = state.dataset): TradeoffParams {
  return {
    commit,
    machine,
    dataset,
    preconditioner: state.pre,
    dictionary_size: state.dict,
    basket_size: state.basket,
    mode: state.mode,
    threads: state.threads,
    codecs: state.codecs || undefined,
  };
}

/** The URL keys of a panel's zoom. */
const ZOOM_KEYS = { compress: ['cx', 'cy'], decompress: ['dx', 'dy'] } as const;

function seriesOf(t: Tradeoff, machine: string, state: State): MachineSeries & { missingReference: boolean } {
  const axis = speedAxis(state.axis);
  const points = t.points.map((p) => toPlotPoint(p, axis));
  const codecs = t.codecs ?? null;
  if (!state.rel) return { machine, points, codecs, missingReference: false };
  const rel = relativeTo(points, state.ref);
  return { machine, points: rel.points, codecs, missingReference: !rel.referenceFound };
}

/** The CSV columns; the speed columns are named after the axis shown (counts have no min/max). */
const csvHeader = (metric: 'mbps' | 'instructions_per_mb') => [
  'commit', 'dataset', 'machine', 'setting', 'label', 'algorithm', 'level', 'ratio', 'compressed_bytes',
  `compress_${metric}_median`, `compress_${metric}_min`, `compress_${metric}_max`,
  `decompress_${metric}_median`, `decompress_${metric}_min`, `decompress_${metric}_max`, 'baseline',
];

function csvRows(series: MachineSeries[], baseline: boolean, commit: string, dataset: string): (string | number | null)[][] {
  return series.flatMap((s) =>
    s.points.map((p: PlotPoint) => [
      commit, dataset, s.machine, p.setting, settingLabel(p.setting), p.algorithm, p.level, p.ratio, p.compressedBytes,
      p.compress, p.compressMin, p.compressMax, p.decompress, p.decompressMin, p.decompressMax, baseline ? 'yes' : 'no',
    ]),
  );
}

export function TradeoffPage() {
  const [state, set] = useUrlState(tradeoffSchema);
  const dims = useDimensions();
  // The newest commit is the default; the pickers search the whole history themselves.
  const commits = useCommits({ limit: 1 });
  const machines = cleanList(state.machine);

  // Resolve defaults into the URL once (replace, no history entry) so the link pins the view.
  useEffect(() => {
    if (!dims.data || !commits.data) return;
    const patch: Partial<State> = {};
    if (!state.commit) {
      const latest = latestCommit(commits.data.items);
      if (latest) patch.commit = latest.sha;
    }
    if (state.machine.length === 0 && dims.data.machines[0]) patch.machine = [dims.data.machines[0]];
    // Open on real baskets (a ROOT file), not on a synthetic generator.
    const real = dims.data.datasets.find((d) => !dims.data.synthetic_datasets.includes(d));
    if (!state.dataset && (real ?? dims.data.datasets[0])) patch.dataset = real ?? dims.data.datasets[0] ?? '';
    if (Object.keys(patch).length) set(patch, { replace: true });
  }, [dims.data, commits.data, state.commit, state.machine.length, state.dataset, set]);

  const currentParams = machines.map((m) => paramsFor(state, state.commit, m));
  // One baseline at a time: another commit, another machine, or another dataset (e.g. the
  // RNTuple form of a TTree dataset, same commit and machines).
  const baselineParams = state.base_dataset
    ? machines.map((m) => paramsFor(state, state.commit, m, state.base_dataset))
    : state.base_commit
      ? machines.map((m) => paramsFor(state, state.base_commit, m))
      : state.base_machine
        ? [paramsFor(state, state.commit, state.base_machine)]
        : [];
  const currentQ = useTradeoffs(currentParams);
  const baselineQ = useTradeoffs(baselineParams);

  const current = useMemo(
    () => currentQ.flatMap((q, i) => (q.data ? [seriesOf(q.data, currentParams[i]?.machine ?? '', state)] : [])),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- data identity is stable per query
    [currentQ.map((q) => q.dataUpdatedAt).join(), state.rel, state.ref, state.axis],
  );
  const baselineLabel = (i: number) =>
    state.base_dataset ? `${baselineParams[i]?.machine ?? ''} · ${state.base_dataset}` : (baselineParams[i]?.machine ?? '');
  const baseline = useMemo(
    () => baselineQ.flatMap((q, i) => (q.data ? [seriesOf(q.data, baselineLabel(i), state)] : [])),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- data identity is stable per query
    [baselineQ.map((q) => q.dataUpdatedAt).join(), state.rel, state.ref, state.base_dataset, state.axis],
  );

  const [clicked, setClicked] = useState<ClickedPoint | null>(null);

  if (dims.isPending || commits.isPending) return <Spinner label="Loading dimensions…" />;
  if (dims.error) return <ErrorState error={dims.error} retry={() => void dims.refetch()} />;
  if (commits.error) return <ErrorState error={commits.error} retry={() => void commits.refetch()} />;
  if (dims.data.machines.length === 0 || commits.data.items.length === 0) {
    return (
      <>
        <PageHeader title="Trade-offs" />
        <EmptyState>{NO_RESULTS_HINT}</EmptyState>
      </>
    );
  }

  const loading = currentQ.some((q) => q.isPending && q.fetchStatus !== 'idle');
  const failed = [...currentQ, ...baselineQ].find((q) => q.error);
  const missingRef = current.some((s) => s.missingReference);
  const empty = !loading && !failed && current.every((s) => s.points.length === 0);
  const axis = speedAxis(state.axis);
  const counts = axis === 'instructions';
  // counts chosen, but no run of this selection was counted (`basketbench run --instructions`)
  const uncounted =
    counts && !empty && current.every((s) => s.points.every((p) => p.compress === null && p.decompress === null));
  const suffix = state.rel ? ` relative to ${settingLabel(state.ref)}` : '';
  const stem = `tradeoff-${state.dataset}-${shortSha(state.commit)}-${machines.join('-')}`;
  const shown = (series: MachineSeries[]) =>
    state.memcpy ? series : series.map((s) => ({ ...s, points: s.points.filter((p) => p.algorithm !== 0) }));
  const memcpy = current.flatMap((s) => s.points.filter((p) => p.algorithm === 0).map((p) => ({ machine: s.machine, p })));
  const synthetic = dims.data.synthetic_datasets.includes(state.dataset);
  const kindLabel = (name: string) => datasetKindLabel(name, dims.data.synthetic_datasets, dims.data.dataset_kinds);
  const codecSeries = unionSeries(currentQ.map((q) => q.data?.codec_series ?? []));
  const clickedSeries = clicked ? (clicked.baseline ? baseline : current)[clicked.series] : undefined;
  const clickedPlotPoint = clickedSeries?.points.find((p) => p.setting === clicked?.setting);

  const panel = (key: SpeedKey) => {
    const { data, annotations, count, yTicks } = buildTraces(shown(current), shown(baseline), key, state.rel, axis);
    const op = key === 'compress' ? 'compression' : 'decompression';
    const ylabel = counts ? `${op} instructions per MB` : `${op} speed`;
    const unit = counts ? 'instructions/MB' : 'MB/s';
    const [xKey, yKey] = ZOOM_KEYS[key];
    return (
      <Plot
        id={`tradeoff-${key}`}
        title={`ratio vs ${ylabel}${suffix}<br><sup>${shortSha(state.commit)} · ${plotText(state.dataset)} · ${plotText(machines.join(', '))}</sup>`}
        data={data}
        pointCount={count}
        filename={`${stem}-${key}`}
        csv={() => ({
          header: csvHeader(counts ? 'instructions_per_mb' : 'mbps'),
          rows: [...csvRows(current, false, state.commit, state.dataset), ...csvRows(baseline, true, state.base_commit || state.commit, state.base_dataset || state.dataset)],
        })}
        onClick={(event) => {
          const hit = clickedPoint(event.points[0]?.customdata);
          if (hit) setClicked(hit);
        }}
        onRelayout={(event) => {
          // zoom and pan go to the URL (?cx=lo~hi&cy=...; y in log10), so a shared link shows the same view
          const x = axisRangeOf(event as Record<string, unknown>, 'xaxis');
          const y = axisRangeOf(event as Record<string, unknown>, 'yaxis');
          const patch: Partial<State> = {};
          if (x !== undefined) patch[xKey] = formatRange(x);
          if (y !== undefined) patch[yKey] = formatRange(y);
          if (Object.keys(patch).length) set(patch, { replace: true });
        }}
        layout={{
          xaxis: {
            title: { text: state.rel ? `compression ratio / ${settingLabel(state.ref)}` : 'compression ratio' },
            ...axisRange(parseRange(state[xKey])),
          },
          yaxis: {
            type: 'log', tickmode: 'array', tickvals: yTicks.tickvals, ticktext: yTicks.ticktext,
            title: { text: state.rel ? `${ylabel} / ${settingLabel(state.ref)}` : `${ylabel} [${unit}]` },
            ...axisRange(parseRange(state[yKey])),
          },
          annotations,
          hovermode: 'closest',
          // several machines: a legend row under the plot (wraps) instead of a scrolled column
          ...(machines.length > 1 ? { legend: { orientation: 'h' as const, y: -0.18, yanchor: 'top' as const } } : {}),
        }}
      />
    );
  };

  return (
    <>
      <PageHeader title="Trade-offs">
        Compression ratio against {counts ? 'instructions per MB (counted under valgrind)' : 'speed'} for commit <CommitLink sha={state.commit} /> on {state.dataset}{' '}
        <span className={`badge ${synthetic ? '' : 'badge-info'}`} data-testid="dataset-kind">{kindLabel(state.dataset)}</span>
        {state.base_dataset && (
          <>
            {' '}beside {state.base_dataset}{' '}
            <span className="badge badge-info" data-testid="base-dataset-kind">{kindLabel(state.base_dataset)}</span> (faded, arrows to {state.dataset})
          </>
        )}.
        Markers: median of the samples; error bars: sample min..max; dotted line: Pareto frontier; click a point for its commit,
        linked. Codecs: {current[0] ? fmtCodecs(current[0].codecs) : '…'}. <Link to={`/configurations${toQuery({ dataset: state.dataset, machine: machines.length === 1 ? machines[0] : undefined, commit: state.commit })}`}>Table view</Link>
      </PageHeader>
      <TradeoffControls state={state} set={set} dims={dims.data} codecSeries={codecSeries} />
      {machines.length === 0 && <EmptyState>Pick at least one machine.</EmptyState>}
      {failed && <ErrorState error={failed.error} retry={() => void failed.refetch()} />}
      {missingRef && (
        <EmptyState>
          Reference {settingLabel(state.ref)} ({state.ref}) has no result for this selection: pick another reference or untick
          “Relative to”.
        </EmptyState>
      )}
      {loading && <Spinner label="Loading trade-off…" />}
      {empty && !missingRef && (
        <EmptyState>
          No results for this commit, machine and configuration. Try another commit or dataset, or trigger a run for this commit on
          the <Link to="/runs">Runs</Link> page.
        </EmptyState>
      )}
      {memcpy.length > 0 && (
        <p className="muted" data-testid="memcpy-note">
          memcpy (no compression) {counts ? 'takes' : 'runs at'}{' '}
          {memcpy.map(({ machine, p }) => `${Math.round((p.compress ?? 0) * 10) / 10} ${counts ? 'instructions per MB' : 'MB/s'} on ${machine}`).join(', ')}
          {state.rel ? ' (relative)' : ''}: {state.memcpy ? 'shown' : 'not plotted, so the codecs keep the whole axis'}.{' '}
          <button type="button" className="btn btn-small" onClick={() => set({ memcpy: !state.memcpy })}>
            {state.memcpy ? 'hide memcpy' : 'show memcpy'}
          </button>
        </p>
      )}
      {uncounted && (
        <EmptyState>
          No instruction counts for this selection: its runs were timed only. Counts come from{' '}
          <code>basketbench run --instructions</code> or a suite with <code>instructions = true</code>; or show{' '}
          <button type="button" className="btn btn-small" onClick={() => set({ axis: 'mbps' })}>
            MB/s
          </button>
        </EmptyState>
      )}
      {!loading && !failed && !empty && !missingRef && !uncounted && (
        <div className="plot-grid">
          {panel('compress')}
          {panel('decompress')}
        </div>
      )}
      {clicked && clickedSeries && clickedPlotPoint && (
        <TradeoffPointDetails
          point={clickedPlotPoint}
          machine={clickedSeries.machine}
          commit={clicked.baseline ? state.base_commit || state.commit : state.commit}
          baseline={clicked.baseline}
          codecs={clickedSeries.codecs}
          relative={state.rel}
          onClose={() => setClicked(null)}
        />
      )}
    </>
  );
}
