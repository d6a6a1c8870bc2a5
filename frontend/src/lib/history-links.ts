// Links into the History page, built in one place. The page reads a series as
// `s=setting~dataset~machine~metric` (features/history/utils/series.ts) and the
// configuration from pre/dict/basket/threads/mode (history-state.ts); each is left out at
// the default the page assumes, so the links stay as short as the page's own URLs.
import { toQuery } from '@/lib/api-client';
import type { Change, CompareRow, Configuration } from '@/types/api';

export interface HistorySeriesRef {
  setting: number;
  dataset: string;
  /** as the dimensions name machines: name@version */
  machine: string;
  metric: string;
}

export type HistoryConfiguration = Pick<Configuration, 'preconditioner' | 'dictionary_size' | 'basket_size' | 'threads' | 'mode'>;

/** The History page plotting one series in one configuration. */
export function historyLink(series: HistorySeriesRef, c: HistoryConfiguration): string {
  return `/history${toQuery({
    s: [series.setting, series.dataset, series.machine, series.metric].join('~'),
    pre: c.preconditioner === 'none' ? undefined : c.preconditioner,
    dict: c.dictionary_size || undefined,
    basket: c.basket_size || undefined,
    threads: c.threads === 1 ? undefined : c.threads,
    mode: c.mode === 'basket' ? undefined : c.mode,
  })}`;
}

/** A detected change's series (Changes page). */
export function changeHistoryLink(c: Change): string {
  const machine = `${c.machine.name}@${c.machine.version}`;
  return historyLink({ setting: c.configuration.setting, dataset: c.dataset, machine, metric: c.metric }, c.configuration);
}

/** A compared row's series on `machine` (Compare page: the head machine, or the one machine). */
export function compareRowHistoryLink(row: CompareRow, machine: string): string {
  return historyLink({ setting: row.configuration.setting, dataset: row.dataset, machine, metric: row.metric }, row.configuration);
}
