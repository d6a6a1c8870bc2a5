import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { getHistoryQueryOptions } from '@/features/history/api/get-history';
import { getTradeoffQueryOptions } from '@/api/get-tradeoff';
import { plotlyFlavour } from '@/lib/plot';
import { apiUrl } from '@/lib/api-client';
import { WEBGL_MIN_POINTS } from '@/lib/webgl';
import {
  DIMENSIONS_URL,
  EARLY_DATA,
  earlyUrl,
  NEWEST_COMMIT_URL,
  pagePlotly,
  routeData,
  routeDataUrls,
  WEBGL_MIN_POINTS as EARLY_WEBGL_MIN_POINTS,
} from './early-data';
import { prefetchRoute } from './prefetch';

const historyParams = (search: string) => routeData('/history', search).history;
const tradeoffParams = (search: string) => routeData('/tradeoffs', search).tradeoff;
const q = (s: string) => s;

describe('start-up prefetch', () => {
  it('reads the history series and configuration from the URL as the page does', () => {
    expect(historyParams(q('s=505~nano~haswell-01~compress_mbps&s=101~nano~epyc-01~ratio~3&max=10000&from=abc'))).toEqual([
      { machine: 'haswell-01', dataset: 'nano', metric: 'compress_mbps', setting: 505, preconditioner: 'none', dictionary_size: 0,
        basket_size: 0, mode: 'basket', threads: 1, commit_from: 'abc', commit_to: undefined, max_points: 10000 },
      { machine: 'epyc-01', dataset: 'nano', metric: 'ratio', setting: 101, preconditioner: 'none', dictionary_size: 0,
        basket_size: 0, mode: 'basket', threads: 1, commit_from: 'abc', commit_to: undefined, max_points: 10000 },
    ]);
    // no series in the URL: the page picks a default from the dimensions first
    expect(historyParams(q(''))).toEqual([]);
    expect(historyParams(q('s=not-a-series'))).toEqual([]);
  });

  it('asks for a trade-off only when commit, machine and dataset are known', () => {
    const base = { dataset: 'nano', preconditioner: 'none', dictionary_size: 0, basket_size: 0, mode: 'basket', threads: 1 };
    expect(tradeoffParams(q('commit=c1&machine=m1&dataset=nano'))).toEqual([{ commit: 'c1', machine: 'm1', ...base }]);
    expect(tradeoffParams(q('commit=c1&machine=m1&dataset=nano&base_machine=m2'))).toEqual([
      { commit: 'c1', machine: 'm1', ...base },
      { commit: 'c1', machine: 'm2', ...base },
    ]);
    expect(tradeoffParams(q('commit=c1&machine=m1&machine=m2&dataset=nano&base_commit=c0')).map((p) => [p.commit, p.machine])).toEqual([
      ['c1', 'm1'], ['c1', 'm2'], ['c0', 'm1'], ['c0', 'm2'],
    ]);
    expect(tradeoffParams(q('machine=m1&dataset=nano'))).toEqual([]);
  });

  it('writes the same request URLs as the API client', () => {
    for (const search of ['s=505~nano set~haswell-01~compress_mbps&max=10000&to=abc&mode=file', 's=101~a%26b~m~ratio~2&dict=32000']) {
      for (const p of historyParams(search)) expect(earlyUrl('/history', p)).toBe(apiUrl('/history', { ...p }));
    }
    for (const p of tradeoffParams('commit=c1&machine=m%201&dataset=nano&threads=4')) expect(earlyUrl('/tradeoff', p)).toBe(apiUrl('/tradeoff', { ...p }));
    expect(routeDataUrls(routeData('/runs', 's=505~nano~m~ratio'))).toEqual([]);
    expect(DIMENSIONS_URL).toBe(apiUrl('/configurations/dimensions'));
    expect(NEWEST_COMMIT_URL).toBe(apiUrl('/commits', { limit: 1 }));
    expect(routeDataUrls(routeData('/tradeoffs', ''))).toEqual([DIMENSIONS_URL, NEWEST_COMMIT_URL]);
  });

  it("answers the page's query with the response index.html started", async () => {
    const search = '?s=505~nano~haswell-01~compress_mbps';
    const [params] = historyParams(search);
    const body = { points: [{ order: 1, value: 2 }] };
    const g = globalThis as unknown as Record<string, unknown>;
    g.window = globalThis;
    g[EARLY_DATA] = { [earlyUrl('/history', params!)]: Promise.resolve(new Response(JSON.stringify(body), { status: 200 })) };
    try {
      const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
      prefetchRoute(client, { pathname: '/history', search });
      const key = getHistoryQueryOptions(params!).queryKey;
      await client.getQueryCache().find({ queryKey: key, exact: true })?.promise;
      expect(client.getQueryData(key)).toEqual(body);
      // handed over once: a later mount asks the server itself
      expect(Object.keys(g[EARLY_DATA] as object)).not.toContain(earlyUrl('/history', params!));
      client.clear();
    } finally {
      delete g.window;
      delete g[EARLY_DATA];
    }
  });

  it("puts the route's queries in the cache under the page's keys and names its Plotly bundle", () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const history = prefetchRoute(client, { pathname: '/history/', search: '?s=505~nano~haswell-01~compress_mbps' });
    // no WebGL in node: the history lines would be SVG scatter, drawn by the basic bundle
    expect(history).toBe('basic');
    const [params] = historyParams(q('s=505~nano~haswell-01~compress_mbps'));
    expect(client.getQueryCache().find({ queryKey: getHistoryQueryOptions(params!).queryKey, exact: true })).toBeDefined();
    expect(client.getQueryCache().find({ queryKey: ['dimensions'], exact: true })).toBeDefined();

    expect(prefetchRoute(client, { pathname: '/', search: '?commit=c1&machine=m1&dataset=nano' })).toBe('basic');
    const [t] = tradeoffParams(q('commit=c1&machine=m1&dataset=nano'));
    expect(client.getQueryCache().find({ queryKey: getTradeoffQueryOptions(t!).queryKey, exact: true })).toBeDefined();
    expect(prefetchRoute(client, { pathname: '/runs', search: '' })).toBeNull();
    client.clear();
  });

  it('preloads the bundle the history plot will use: gl only above WebGL\'s threshold', () => {
    expect(EARLY_WEBGL_MIN_POINTS).toBe(WEBGL_MIN_POINTS);
    const page = (search: string) => pagePlotly(routeData('/history', search));
    expect(page('s=505~nano~haswell-01~compress_mbps')).toBe('basic'); // 2 000 points by default
    expect(page('s=505~nano~haswell-01~compress_mbps&max=10000')).toBe('basic');
    expect(page('s=505~nano~haswell-01~compress_mbps&max=50000')).toBe('gl');
    // series of one metric share a plot; of two metrics, each has its own
    expect(page('s=505~nano~a~ratio&s=505~nano~b~ratio&s=505~nano~c~ratio&max=8000')).toBe('gl');
    expect(page('s=505~nano~a~ratio&s=505~nano~b~compress_mbps&max=15000')).toBe('basic');
    expect(pagePlotly(routeData('/tradeoffs', 'commit=c1&machine=m1&dataset=nano'))).toBe('basic');
    expect(pagePlotly(routeData('/runs', ''))).toBeNull();
  });

  it('draws WebGL traces with the gl2d bundle and everything else with the basic one', () => {
    expect(plotlyFlavour([{ type: 'scatter' }, { type: 'scattergl' }])).toBe('gl');
    expect(plotlyFlavour([{ type: 'scatter' }, {}])).toBe('basic');
  });
});
