import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useDimensions } from '@/api/get-dimensions';
import { DeferredTextField, PageHeader, SelectField } from '@/components/ui/field';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { METRIC_LABELS, settingLabel } from '@/lib/format';
import { cleanList, useUrlState } from '@/lib/url-state';
import { toQuery } from '@/lib/api-client';
import { useHistories, type HistoryParams } from '../api/get-history';
import { decodeSeries, encodeSeries, METRICS, type SeriesKey } from '../utils/series';
import { HistoryPlot, type LoadedSeries } from './history-plot';
import { historySchema } from './history-state';

export function HistoryPage() {
  const [state, set] = useUrlState(historySchema);
  const dims = useDimensions();
  const navigate = useNavigate();
  const keys = useMemo(
    () => cleanList(state.s).map(decodeSeries).filter((k): k is SeriesKey => k !== null),
    [state.s],
  );
  const [draft, setDraft] = useState<SeriesKey>({ setting: 505, dataset: '', machine: '', metric: 'compress_mbps' });

  useEffect(() => {
    if (!dims.data || state.s.length > 0) return;
    const { datasets, machines, settings } = dims.data;
    if (!datasets[0] || !machines[0]) return;
    const setting = settings.includes(505) ? 505 : (settings[0] ?? 505);
    set({ s: [encodeSeries({ setting, dataset: datasets[0], machine: machines[0], metric: 'compress_mbps' })] }, { replace: true });
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
  }));
  const queries = useHistories(params);

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

  const draftFull: SeriesKey = {
    ...draft,
    dataset: draft.dataset || d.datasets[0] || '',
    machine: draft.machine || d.machines[0] || '',
  };
  const loaded: LoadedSeries[] = queries.flatMap((q, i) => {
    const key = keys[i];
    return q.data && key ? [{ key, index: i, history: q.data }] : [];
  });
  const metrics = [...new Set(keys.map((k) => k.metric))];
  const failed = queries.find((q) => q.error);
  const loading = queries.some((q) => q.isPending);
  const downsampled = loaded.filter((s) => s.history.downsampled);

  const openCompare = (key: SeriesKey, sha: string) => {
    navigate(
      `/compare${toQuery({ head: sha, machine: key.machine, dataset: key.dataset, metric: key.metric, setting: key.setting })}`,
    );
  };

  return (
    <>
      <PageHeader title="History">
        Series over commits in git order; band = sample min..max; triangles = detected changes. Click a point to compare that
        commit with its parent.
      </PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="history selection">
        <SelectField name="add_setting" label="Setting" value={String(draftFull.setting)}
          options={d.settings.map((s) => ({ value: String(s), label: `${settingLabel(s)} (${s})` }))}
          onChange={(v) => setDraft({ ...draftFull, setting: Number(v) })} />
        <SelectField name="add_dataset" label="Dataset" value={draftFull.dataset} options={d.datasets.map((v) => ({ value: v }))}
          onChange={(v) => setDraft({ ...draftFull, dataset: v })} />
        <SelectField name="add_machine" label="Machine" value={draftFull.machine} options={d.machines.map((v) => ({ value: v }))}
          onChange={(v) => setDraft({ ...draftFull, machine: v })} />
        <SelectField name="add_metric" label="Metric" value={draftFull.metric}
          options={METRICS.map((m) => ({ value: m, label: METRIC_LABELS[m] ?? m }))}
          onChange={(v) => setDraft({ ...draftFull, metric: v })} />
        <button type="button" className="btn" onClick={() => {
          const enc = encodeSeries(draftFull);
          if (!cleanList(state.s).includes(enc)) set({ s: [...cleanList(state.s), enc] });
        }}>Add series</button>
        <SelectField name="pre" label="Preconditioner" value={state.pre} options={d.preconditioners.map((v) => ({ value: v }))} onChange={(v) => set({ pre: v })} />
        <SelectField name="dict" label="Dictionary" value={String(state.dict)} options={d.dictionary_sizes.map((v) => ({ value: String(v) }))} onChange={(v) => set({ dict: Number(v) })} />
        <SelectField name="basket" label="Basket size" value={String(state.basket)} options={d.basket_sizes.map((v) => ({ value: String(v) }))} onChange={(v) => set({ basket: Number(v) })} />
        <SelectField name="threads" label="Threads" value={String(state.threads)} options={d.threads.map((v) => ({ value: String(v) }))} onChange={(v) => set({ threads: Number(v) })} />
        <SelectField name="mode" label="Mode" value={state.mode} options={d.modes.map((v) => ({ value: v }))} onChange={(v) => set({ mode: v })} />
        <DeferredTextField name="from" label="From commit" value={state.from} placeholder="sha (Enter)" onCommit={(v) => set({ from: v })} />
        <DeferredTextField name="to" label="To commit" value={state.to} placeholder="sha (Enter)" onCommit={(v) => set({ to: v })} />
        <SelectField name="max" label="Max points" value={String(state.max)}
          options={[500, 1000, 2000, 5000, 10000].map((v) => ({ value: String(v) }))} onChange={(v) => set({ max: Number(v) })} />
      </form>
      <ul className="chips" aria-label="series">
        {keys.map((k) => {
          const enc = encodeSeries(k);
          return (
            <li key={enc} className="chip">
              {settingLabel(k.setting)} · {k.dataset} · {k.machine} · {METRIC_LABELS[k.metric] ?? k.metric}
              <button type="button" aria-label={`remove ${enc}`} onClick={() => set({ s: cleanList(state.s).filter((x) => x !== enc).concat(cleanList(state.s).length === 1 ? [''] : []) })}>
                ×
              </button>
            </li>
          );
        })}
      </ul>
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
          return ofMetric.length ? <HistoryPlot key={m} metric={m} series={ofMetric} onPointClick={openCompare} /> : null;
        })}
    </>
  );
}
