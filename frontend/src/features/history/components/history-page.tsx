import { useEffect, useMemo, useState } from 'react';
import { useCommit } from '@/api/get-commit';
import { Link } from 'react-router';
import { useDimensions } from '@/api/get-dimensions';
import { PageHeader, SelectField } from '@/components/ui/field';
import { CommitSelect } from '@/components/ui/commit-select';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { METRIC_LABELS, settingLabel } from '@/lib/format';
import type { DimensionsView } from '@/api/get-dimensions';
import { cleanList, useUrlState } from '@/lib/url-state';
import { toQuery } from '@/lib/api-client';
import { CodecSeriesSelect } from '@/components/ui/codec-series-select';
import { findSeries, seriesName, seriesParam } from '@/lib/codecs';
import { CommitLink } from '@/components/commit-link';
import { useHistories, type HistoryParams } from '../api/get-history';
import { codecKeyOf, dashWord, LEGACY, otherSeries, seriesOrder } from '../utils/codec-lines';
import { addSeries, assignColors, decodeSeries, encodeSeries, METRICS, replaceSeries, seriesColor, type SeriesKey } from '../utils/series';
import { formatZoom, parseZoom } from '../utils/zoom';
import { HistoryPlot, type LoadedSeries } from './history-plot';
import { PointDetails } from './point-details';
import { historySchema } from './history-state';

/** The fields of one plotted series, bound to it: what they show is what is plotted. */
function SeriesFields({ prefix, value, dims, onChange }: {
  prefix: string;
  value: SeriesKey;
  dims: DimensionsView;
  onChange: (patch: Partial<SeriesKey>) => void;
}) {
  return (
    <>
      <SelectField name={`${prefix}_setting`} label="Setting" value={String(value.setting)}
        options={dims.settings.map((s) => ({ value: String(s), label: `${settingLabel(s)} (${s})` }))}
        onChange={(v) => onChange({ setting: Number(v) })} />
      <SelectField name={`${prefix}_dataset`} label="Dataset" value={value.dataset} options={dims.datasets.map((v) => ({ value: v }))}
        onChange={(v) => onChange({ dataset: v })} />
      <SelectField name={`${prefix}_machine`} label="Machine" value={value.machine} options={dims.machines.map((v) => ({ value: v }))}
        onChange={(v) => onChange({ machine: v })} />
      <SelectField name={`${prefix}_metric`} label="Metric" value={value.metric}
        options={METRICS.map((m) => ({ value: m, label: METRIC_LABELS[m] ?? m }))}
        onChange={(v) => onChange({ metric: v })} />
    </>
  );
}

/** The first dataset of real ROOT baskets (a newcomer's first plot), else the first one. */
function firstDataset(d: DimensionsView): string {
  return d.datasets.find((ds) => !d.synthetic_datasets.includes(ds)) ?? d.datasets[0] ?? '';
}

/** A new series: the last one's dataset, machine and metric with the next setting. */
function nextSeries(last: SeriesKey | undefined, d: DimensionsView): SeriesKey {
  const settings = d.settings;
  if (!last) return { setting: settings.includes(505) ? 505 : (settings[0] ?? 505), dataset: firstDataset(d), machine: d.machines[0] ?? '', metric: 'compress_mbps' };
  const at = settings.indexOf(last.setting);
  return { ...last, color: undefined, setting: settings[(at + 1) % Math.max(1, settings.length)] ?? last.setting };
}

function contextLine(series: LoadedSeries[], state: { pre: string; dict: number; basket: number; threads: number; mode: string }): string {
  const machines = [...new Set(series.map((s) => s.key.machine))].join(', ');
  const datasets = [...new Set(series.map((s) => s.key.dataset))].join(', ');
  return `${datasets} · ${machines} · ${state.pre}, dict ${state.dict}, basket ${state.basket}, ${state.threads} thread(s), ${state.mode}`;
}

export function HistoryPage() {
  const [state, set] = useUrlState(historySchema);
  const dims = useDimensions();
  const keys = useMemo(
    () => assignColors(cleanList(state.s).map(decodeSeries).filter((k): k is SeriesKey => k !== null)),
    [state.s],
  );
  const setKeys = (next: readonly SeriesKey[]) => set({ s: next.length ? next.map(encodeSeries) : [''] });
  const fromCommit = useCommit(state.from);
  const toCommit = useCommit(state.to);
  const reversed =
    fromCommit.data && toCommit.data && (fromCommit.data.order ?? 0) > (toCommit.data.order ?? 0)
      ? { from: fromCommit.data.sha, to: toCommit.data.sha }
      : null;
  const zoom = parseZoom(state.x);

  useEffect(() => {
    if (!dims.data || state.s.length > 0) return;
    const { machines, settings } = dims.data;
    const dataset = firstDataset(dims.data);
    if (!dataset || !machines[0]) return;
    const setting = settings.includes(505) ? 505 : (settings[0] ?? 505);
    set({ s: [encodeSeries({ setting, dataset, machine: machines[0], metric: 'compress_mbps' })] }, { replace: true });
  }, [dims.data, state.s.length, set]);

  const params: HistoryParams[] = keys.map((k) => ({
    machine: k.machine,
    dataset: k.dataset,
    metric: k.metric,
    setting: k.setting,
    preconditioner: state.pre,
    dictionary_size: state.dict,
    basket_size: state.basket,
    mode: state.mode,
    threads: state.threads,
    commit_from: state.from || undefined,
    commit_to: state.to || undefined,
    max_points: state.max,
    codecs: state.codecs || undefined,
  }));
  // Every codec series (the default): the first answers name the other series, each then
  // fetched and drawn as its own line.
  const first = useHistories(params);
  const others = state.codecs ? [] : otherSeries(first.map((q) => q.data));
  const more = useHistories(others.flatMap((o) => (params[o.index] ? [{ ...params[o.index]!, codecs: o.codecs }] : [])));
  const queries = [...first, ...more];
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
  const order = seriesOrder(first.flatMap((q) => (q.data ? [q.data] : [])));
  const styleOf = (codecKey: string) => {
    const at = order.findIndex((c) => c.series_key === codecKey);
    return at < 0 ? order.length : at;
  };
  const answers = [...first.map((q, i) => ({ q, index: i })), ...more.map((q, j) => ({ q, index: others[j]?.index ?? -1 }))];
  const codecKeys = new Set(answers.flatMap(({ q }) => (q.data ? [codecKeyOf(q.data)] : [])));
  const loaded: LoadedSeries[] = answers
    .flatMap(({ q, index }) => {
      const key = keys[index];
      if (!q.data || !key || reversed) return [];
      const codecKey = codecKeyOf(q.data);
      return [{ key, index, history: q.data, codecKey, style: styleOf(codecKey), nameCodecs: codecKeys.size > 1 }];
    })
    .sort((a, b) => a.index - b.index || a.style - b.style);
  const chosen = state.codecs ? findSeries(order, state.codecs) : undefined;
  const codecNote =
    order.length === 0
      ? ''
      : state.codecs
        ? `Only the ${chosen ? seriesName(chosen) : state.codecs} codec series is drawn; “every codec series” draws each as its own line.`
        : order.length > 1
          ? `Each codec series is its own line, never joined across series (a codec library change is not a change of ROOT): ${order
              .map((c, i) => `${dashWord(i)} = ${seriesName(c)}`)
              .join(', ')}.`
          : `One codec series: ${order[0] ? seriesName(order[0]) : ''}.`;
  const line = selected ? loaded.find((l) => l.index === selected.index && l.codecKey === selected.codecKey) : undefined;
  const compareHref = (l: LoadedSeries, base: string, head: string) => {
    const series = order.find((c) => c.series_key === l.codecKey);
    return `/compare${toQuery({
      base,
      head,
      machine: l.key.machine,
      dataset: l.key.dataset,
      metric: l.key.metric,
      setting: l.key.setting,
      codecs: series ? seriesParam(series, order) : l.codecKey === LEGACY ? undefined : l.codecKey,
    })}`;
  };
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
      {codecNote && (
        <p className="muted" data-testid="codec-note">
          {codecNote}
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
                <PointDetails line={line} sha={selected.sha} compareHref={(base) => compareHref(line, base, selected.sha)}
                  onClose={() => setSelected(null)} />
              )}
            </div>
          ) : null;
        })}
    </>
  );
}
