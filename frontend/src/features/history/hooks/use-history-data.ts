// The History page's data: its URL state (series, configuration, range), the default
// series written into the URL, and every series' history in each codec series it was
// measured in, as plotted lines.
import { useEffect, useMemo } from 'react';
import { useCommit } from '@/api/get-commit';
import { useDimensions } from '@/api/get-dimensions';
import { cleanList, useUrlState } from '@/lib/url-state';
import { useHistories, type HistoryParams } from '../api/get-history';
import type { LoadedSeries } from '../components/history-plot';
import { historySchema } from '../components/history-state';
import { codecKeyOf, otherSeries, seriesOrder } from '../utils/codec-lines';
import { firstDataset } from '../utils/defaults';
import { assignColors, decodeSeries, encodeSeries, type SeriesKey } from '../utils/series';
import { parseZoom } from '../utils/zoom';

export function useHistoryData() {
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

  return { state, set, dims, keys, setKeys, fromCommit, toCommit, reversed, zoom, queries, order, loaded };
}
