// The page's main data request, started by index.html itself: vite.config.ts transpiles
// this file and inlines it as a classic script, so the request leaves while the app's own
// code is still arriving (not only once React, the router and the query client have run).
// It must therefore stand alone: no imports but types, no bundler helpers.
//
// What it asks for mirrors what HistoryPage and TradeoffPage compute from the URL (their
// schemas' defaults, history/utils/series.ts decoding); prefetch.ts hands the responses to
// the pages' queries. If they drift apart, the page asks again on its own (`make
// frontend-perf` warns about the extra request).
import type { HistoryParams } from '@/features/history/api/get-history';
import type { TradeoffParams } from '@/api/get-tradeoff';

export interface RouteData {
  page: 'tradeoffs' | 'history' | null;
  history: HistoryParams[];
  tradeoff: TradeoffParams[];
}

/** window property holding the started requests: API URL -> response */
export const EARLY_DATA = '__basketbenchEarlyData';

const HISTORY_METRICS = ['compress_mbps', 'decompress_mbps', 'ratio', 'compressed_bytes'];

function str(q: URLSearchParams, key: string, dflt = ''): string {
  const v = q.get(key);
  return v === null ? dflt : v;
}

function num(q: URLSearchParams, key: string, dflt: number): number {
  const v = q.get(key);
  if (v === null || v.trim() === '') return dflt;
  const n = Number(v);
  return Number.isFinite(n) ? n : dflt;
}

function list(q: URLSearchParams, key: string): string[] {
  return q.getAll(key).filter((v) => v !== '');
}

/** The main queries of the page at this URL (none for pages without a plot). */
export function routeData(pathname: string, search: string): RouteData {
  const path = pathname.replace(/\/+$/, '') || '/';
  const q = new URLSearchParams(search);
  const config = {
    preconditioner: str(q, 'pre', 'none'),
    dictionary_size: num(q, 'dict', 0),
    basket_size: num(q, 'basket', 0),
    mode: str(q, 'mode', 'basket'),
    threads: num(q, 'threads', 1),
  };
  if (path === '/history') {
    const history: HistoryParams[] = [];
    for (const raw of list(q, 's')) {
      // setting~dataset~machine~metric[~colour] (history/utils/series.ts)
      const parts = raw.split('~');
      const setting = Number(parts[0]);
      const colour = parts[4] === undefined ? 0 : Number(parts[4]);
      if ((parts.length !== 4 && parts.length !== 5) || !Number.isInteger(setting) || !parts[1] || !parts[2]) continue;
      if (!HISTORY_METRICS.includes(parts[3] ?? '') || !Number.isInteger(colour) || colour < 0) continue;
      history.push({
        machine: parts[2],
        dataset: parts[1],
        metric: parts[3] ?? '',
        setting,
        ...config,
        commit_from: str(q, 'from') || undefined,
        commit_to: str(q, 'to') || undefined,
        max_points: num(q, 'max', 2000),
        codecs: str(q, 'codecs') || undefined,
      });
    }
    return { page: 'history', history, tradeoff: [] };
  }
  if (path === '/' || path === '/tradeoffs') {
    const commit = str(q, 'commit');
    const machines = list(q, 'machine');
    const baseCommit = str(q, 'base_commit');
    const baseMachine = str(q, 'base_machine');
    const pairs = machines.map((machine) => [commit, machine]);
    if (baseCommit) for (const machine of machines) pairs.push([baseCommit, machine]);
    else if (baseMachine) pairs.push([commit, baseMachine]);
    const dataset = str(q, 'dataset');
    const tradeoff = pairs
      .filter(([c, m]) => c && m && dataset)
      .map(([c, m]) => ({ commit: c ?? '', machine: m ?? '', dataset, ...config }));
    return { page: 'tradeoffs', history: [], tradeoff };
  }
  return { page: null, history: [], tradeoff: [] };
}

/** GET URL of an API query, as lib/api-client.ts's apiUrl writes it. */
export function earlyUrl(path: string, params: object): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.append(k, String(v));
  const s = q.toString();
  return `/api/v1${path}${s ? `?${s}` : ''}`;
}

/** The selector lists both plotting pages wait for, and the trade-off page's default commit. */
export const DIMENSIONS_URL = earlyUrl('/configurations/dimensions', {});
export const NEWEST_COMMIT_URL = earlyUrl('/commits', { limit: 1 });

export function routeDataUrls(data: RouteData): string[] {
  if (data.page === null) return [];
  return [
    ...data.history.map((p) => earlyUrl('/history', p)),
    ...data.tradeoff.map((p) => earlyUrl('/tradeoff', p)),
    DIMENSIONS_URL,
    ...(data.page === 'tradeoffs' ? [NEWEST_COMMIT_URL] : []),
  ];
}

/** lib/webgl.ts's WEBGL_MIN_POINTS (this file may import nothing; prefetch.test.ts checks). */
export const WEBGL_MIN_POINTS = 20_000;

/** The most points one plot of the page may hold (history series of one metric share a plot). */
export function largestPlot(data: RouteData): number {
  const perMetric: Record<string, number> = {};
  for (const p of data.history) perMetric[p.metric] = (perMetric[p.metric] ?? 0) + p.max_points;
  return Math.max(0, ...Object.values(perMetric));
}

/** window property: the Plotly bundle index.html preloads for the page ('basic' | 'gl') */
export const EARLY_PLOTLY = '__basketbenchPlotly';

/** The Plotly bundle the page draws with where WebGL works; null for a page without plots. */
export function pagePlotly(data: RouteData): 'basic' | 'gl' | null {
  if (data.page === null) return null;
  return data.page === 'history' && largestPlot(data) > WEBGL_MIN_POINTS ? 'gl' : 'basic';
}

/** index.html: start the route's main requests now, and name the Plotly bundle to preload. */
export function startEarlyData(): void {
  const started: Record<string, Promise<Response>> = {};
  const data = routeData(location.pathname, location.search);
  (window as unknown as Record<string, unknown>)[EARLY_PLOTLY] = pagePlotly(data);
  for (const url of routeDataUrls(data)) {
    started[url] = fetch(url, { headers: { Accept: 'application/json' } });
    started[url].catch(() => undefined); // a failure is the page's to report, when it asks
  }
  (window as unknown as Record<string, unknown>)[EARLY_DATA] = started;
}
