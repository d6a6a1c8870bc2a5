// What a cold load of a plotting page needs, set up before React renders: the page's first
// API queries go into the query cache under the keys the page uses (so its hooks find them
// in flight), answered by the requests index.html already started (early-data.ts) when
// there are some; and the Plotly bundle that will draw the page starts loading.
import type { QueryClient } from '@tanstack/react-query';
import { getCommits, getCommitsQueryOptions } from '@/api/get-commits';
import { getDimensions, getDimensionsQueryOptions } from '@/api/get-dimensions';
import { getHistory, getHistoryQueryOptions } from '@/features/history/api/get-history';
import { getTradeoff, getTradeoffQueryOptions } from '@/api/get-tradeoff';
import { plotlyFlavour, type PlotlyFlavour } from '@/lib/plot';
import { fastScatter } from '@/lib/webgl';
import { DIMENSIONS_URL, EARLY_DATA, earlyUrl, largestPlot, NEWEST_COMMIT_URL, routeData } from './early-data';

/** The response index.html started for this URL, handed over once; undefined if none. */
function takeEarly(url: string): Promise<Response> | undefined {
  const started = (window as unknown as Record<string, Record<string, Promise<Response>> | undefined>)[EARLY_DATA];
  const response = started?.[url];
  if (started) delete started[url];
  return response;
}

/** The query's own fetch, unless index.html's request for the same URL answered it well. */
function earlyOr<T>(url: string, own: (signal: AbortSignal) => Promise<T>): (ctx: { signal: AbortSignal }) => Promise<T> {
  const early = typeof window === 'undefined' ? undefined : takeEarly(url);
  if (!early) return ({ signal }) => own(signal);
  return async ({ signal }) => {
    const response = await early.catch(() => null);
    // errors (and their ApiError) come from the page's own request, as without this
    return response?.ok ? ((await response.json()) as T) : own(signal);
  };
}

/** Starts the route's first queries; returns the Plotly bundle its plots will need, if any. */
export function prefetchRoute(client: QueryClient, location: { pathname: string; search: string }): PlotlyFlavour | null {
  const data = routeData(location.pathname, location.search);
  if (data.page === null) return null;
  void client.prefetchQuery({ ...getDimensionsQueryOptions(), queryFn: earlyOr(DIMENSIONS_URL, () => getDimensions()) });
  for (const params of data.history) {
    const options = getHistoryQueryOptions(params);
    void client.prefetchQuery({ ...options, queryFn: earlyOr(earlyUrl('/history', params), (signal) => getHistory(params, signal)) });
  }
  for (const params of data.tradeoff) {
    const options = getTradeoffQueryOptions(params);
    void client.prefetchQuery({ ...options, queryFn: earlyOr(earlyUrl('/tradeoff', params), (signal) => getTradeoff(params, signal)) });
  }
  if (data.page === 'history') {
    // the lines are scattergl when a plot may hold more than WEBGL_MIN_POINTS (history-plot.tsx)
    return plotlyFlavour([{ type: fastScatter(largestPlot(data)) }]);
  }
  void client.prefetchQuery({ ...getCommitsQueryOptions({ limit: 1 }), queryFn: earlyOr(NEWEST_COMMIT_URL, () => getCommits({ limit: 1 })) });
  return 'basic';
}
