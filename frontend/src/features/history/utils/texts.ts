// The History page's texts and links derived from what it plots.
import { toQuery } from '@/lib/api-client';
import { findSeries, seriesName, seriesParam } from '@/lib/codecs';
import type { CodecSeries } from '@/types/api';
import type { LoadedSeries } from '../components/history-plot';
import { dashWord, LEGACY } from './codec-lines';

/** The plots' context line (titles, so PNG exports carry it). */
export function contextLine(series: LoadedSeries[], state: { pre: string; dict: number; basket: number; threads: number; mode: string }): string {
  const machines = [...new Set(series.map((s) => s.key.machine))].join(', ');
  const datasets = [...new Set(series.map((s) => s.key.dataset))].join(', ');
  return `${datasets} · ${machines} · ${state.pre}, dict ${state.dict}, basket ${state.basket}, ${state.threads} thread(s), ${state.mode}`;
}

/** Which codec series are drawn and how each is told apart; '' before any answer. */
export function codecNote(order: readonly CodecSeries[], codecs: string): string {
  const chosen = codecs ? findSeries(order, codecs) : undefined;
  return order.length === 0
    ? ''
    : codecs
      ? `Only the ${chosen ? seriesName(chosen) : codecs} codec series is drawn; “every codec series” draws each as its own line.`
      : order.length > 1
        ? `Each codec series is its own line, never joined across series (a codec library change is not a change of ROOT): ${order
            .map((c, i) => `${dashWord(i)} = ${seriesName(c)}`)
            .join(', ')}.`
        : `One codec series: ${order[0] ? seriesName(order[0]) : ''}.`;
}

/** The Compare page for a line's two commits, within the line's codec series. */
export function compareHref(l: LoadedSeries, order: readonly CodecSeries[], base: string, head: string): string {
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
}
