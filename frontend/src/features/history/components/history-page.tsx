import { useState } from 'react';
import { Link } from 'react-router';
import { CommitLink } from '@/components/commit-link';
import { CodecSeriesSelect } from '@/components/ui/codec-series-select';
import { CommitSelect } from '@/components/ui/commit-select';
import { PageHeader, SelectField } from '@/components/ui/field';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { useHistoryData } from '../hooks/use-history-data';
import { nextSeries } from '../utils/defaults';
import { addSeries, replaceSeries, seriesColor } from '../utils/series';
import { codecNote, compareHref, contextLine } from '../utils/texts';
import { formatZoom } from '../utils/zoom';
import { HistoryPlot } from './history-plot';
import { PointDetails } from './point-details';
import { SeriesFields } from './series-fields';

export function HistoryPage() {
  const { state, set, dims, keys, setKeys, fromCommit, toCommit, reversed, zoom, queries, order, loaded } = useHistoryData();
  const [selected, setSelected] = useState<{ index: number; codecKey: string; sha: string } | null>(null);

  if (dims.isPending) return <Spinner label="Loading dimensions…" />;
  if (dims.error) return <ErrorState error={dims.error} retry={() => void dims.refetch()} />;
  const d = dims.data;
  if (d.machines.length === 0) {
    return (
      <>
        <PageHeader title="History" />
        <EmptyState>{NO_RESULTS_HINT}</EmptyState>
      </>
    );
  }

  const last = keys.at(-1);
  const note = codecNote(order, state.codecs);
  const line = selected ? loaded.find((l) => l.index === selected.index && l.codecKey === selected.codecKey) : undefined;
  const metrics = [...new Set(keys.map((k) => k.metric))];
  const failed = queries.find((q) => q.error);
  const loading = queries.some((q) => q.isPending);
  const downsampled = loaded.filter((s) => s.history.downsampled);

  return (
    <>
      <PageHeader title="History">
        Series over commits in git order; band = sample min..max; triangles = detected changes; each codec series is its own
        line. Click a point for its commit (linked to its repository) and a comparison with the previous point of its line.
      </PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="history selection">
        <SelectField name="pre" label="Preconditioner" value={state.pre} options={d.preconditioners.map((v) => ({ value: v }))} onChange={(v) => set({ pre: v })} />
        <SelectField name="dict" label="Dictionary" value={String(state.dict)} options={d.dictionary_sizes.map((v) => ({ value: String(v) }))} onChange={(v) => set({ dict: Number(v) })} />
        <SelectField name="basket" label="Basket size" value={String(state.basket)} options={d.basket_sizes.map((v) => ({ value: String(v) }))} onChange={(v) => set({ basket: Number(v) })} />
        <SelectField name="threads" label="Threads" value={String(state.threads)} options={d.threads.map((v) => ({ value: String(v) }))} onChange={(v) => set({ threads: Number(v) })} />
        <SelectField name="mode" label="Mode" value={state.mode} options={d.modes.map((v) => ({ value: v }))} onChange={(v) => set({ mode: v })} />
        <CommitSelect name="from" label="From commit" value={state.from} emptyLabel="the oldest" onChange={(v) => set({ from: v })} />
        <CommitSelect name="to" label="To commit" value={state.to} emptyLabel="the newest" onChange={(v) => set({ to: v })} />
        <SelectField name="xlabels" label="X axis" value={state.xlabels} options={[{ value: 'date', label: 'commit dates' }, { value: 'sha', label: 'short shas' }]}
          onChange={(v) => set({ xlabels: v })} />
        <SelectField name="max" label="Max points" value={String(state.max)}
          options={[500, 1000, 2000, 5000, 10000].map((v) => ({ value: String(v) }))} onChange={(v) => set({ max: Number(v) })} />
        <CodecSeriesSelect value={state.codecs} series={order} emptyLabel="every codec series, each its own line"
          onChange={(v) => set({ codecs: v })} />
      </form>
      {note && (
        <p className="muted" data-testid="codec-note">
          {note}
        </p>
      )}
      <ol className="series-editor" aria-label="series">
        {keys.map((k, i) => (
          <li key={i} className="series-row" data-series={i}>
            <span className="swatch" style={{ background: seriesColor(k) }} aria-hidden="true" />
            <SeriesFields prefix={`s${i}`} value={k} dims={d} onChange={(patch) => setKeys(replaceSeries(keys, i, patch))} />
            <button type="button" className="btn btn-small" aria-label={`remove series ${i + 1}`} onClick={() => setKeys(keys.filter((_, j) => j !== i))}>
              remove
            </button>
          </li>
        ))}
      </ol>
      <button type="button" className="btn" name="add_series" onClick={() => setKeys(addSeries(keys, nextSeries(last, d)))}>
        Add a series
      </button>
      {reversed && (
        <div role="alert" className="state state-error" data-testid="reversed-range">
          “From” <CommitLink sha={reversed.from} repository={fromCommit.data?.repository} /> comes after “To”{' '}
          <CommitLink sha={reversed.to} repository={toCommit.data?.repository} /> in git order.{' '}
          <button type="button" className="btn btn-small" onClick={() => set({ from: state.to, to: state.from })}>
            swap them
          </button>
        </div>
      )}
      {[fromCommit, toCommit].map((q, i) =>
        q.error ? <ErrorState key={i} error={q.error} /> : null,
      )}
      {keys.length === 0 && <EmptyState>No series selected: pick a setting, dataset, machine and metric, then “Add series”.</EmptyState>}
      {failed && <ErrorState error={failed.error} retry={() => void failed.refetch()} />}
      {loading && <Spinner label="Loading history…" />}
      {downsampled.length > 0 && (
        <p className="muted">
          Server-downsampled: {downsampled.map((s) => `${s.history.points.length} of ${s.history.total_points}`).join(', ')} points
          shown (raise “Max points” or narrow the commit range for all of them).
        </p>
      )}
      {!loading && loaded.length > 0 && loaded.every((s) => s.history.points.length === 0) && (
        <EmptyState>
          These series have no results yet: check the <Link to="/configurations">configurations</Link> that exist, or trigger runs
          on the <Link to="/runs">Runs</Link> page.
        </EmptyState>
      )}
      {!loading &&
        metrics.map((m) => {
          const ofMetric = loaded.filter((s) => s.key.metric === m && s.history.points.length > 0);
          // One x range for every metric's plot (linked axes), kept in the URL (?x=lo~hi).
          return ofMetric.length ? (
            <div key={m}>
              <HistoryPlot metric={m} series={ofMetric} xRange={zoom} axisLabels={state.xlabels === 'sha' ? 'sha' : 'date'}
                onPointClick={(l, sha) => setSelected({ index: l.index, codecKey: l.codecKey, sha })}
                onXRange={(r) => set({ x: formatZoom(r) }, { replace: true })} context={contextLine(ofMetric, state)} />
              {line && selected && line.key.metric === m && (
                <PointDetails line={line} sha={selected.sha} compareHref={(base) => compareHref(line, order, base, selected.sha)}
                  onClose={() => setSelected(null)} />
              )}
            </div>
          ) : null;
        })}
    </>
  );
}
