import { useState } from 'react';
import { Link } from 'react-router';
import { CommitLink } from '@/components/commit-link';
import { PageHeader } from '@/components/ui/field';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { toQuery } from '@/lib/api-client';
import { fmtCodecs, unionSeries } from '@/lib/codecs';
import { datasetKindLabel } from '@/lib/dataset-kind';
import { settingLabel } from '@/lib/format';
import { useTradeoffData } from '../hooks/use-tradeoff-data';
import { speedAxis } from '../utils/relative';
import type { ClickedPoint } from '../utils/traces';
import { TradeoffPointDetails } from './point-details';
import { TradeoffControls } from './tradeoff-controls';
import { TradeoffPanel } from './tradeoff-panel';

export function TradeoffPage() {
  const { state, set, dims, commits, machines, currentQ, baselineQ, current, baseline } = useTradeoffData();
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
  const memcpy = current.flatMap((s) => s.points.filter((p) => p.algorithm === 0).map((p) => ({ machine: s.machine, p })));
  const synthetic = dims.data.synthetic_datasets.includes(state.dataset);
  const kindLabel = (name: string) => datasetKindLabel(name, dims.data.synthetic_datasets, dims.data.dataset_kinds);
  const codecSeries = unionSeries(currentQ.map((q) => q.data?.codec_series ?? []));
  const clickedSeries = clicked ? (clicked.baseline ? baseline : current)[clicked.series] : undefined;
  const clickedPlotPoint = clickedSeries?.points.find((p) => p.setting === clicked?.setting);

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
          <TradeoffPanel speed="compress" state={state} set={set} machines={machines} current={current} baseline={baseline} onPoint={setClicked} />
          <TradeoffPanel speed="decompress" state={state} set={set} machines={machines} current={current} baseline={baseline} onPoint={setClicked} />
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
