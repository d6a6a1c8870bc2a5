// Shared: the trade-off page plots these points; the Recommend page ranks them as its
// default candidates; app/prefetch.ts starts them before the page renders.
import { queryOptions, useQueries } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Tradeoff } from '@/types/api';

export interface TradeoffParams {
  commit: string;
  machine: string;
  dataset: string;
  preconditioner: string;
  dictionary_size: number;
  basket_size: number;
  mode: string;
  threads: number;
  /** a codec series key or set name; undefined: the commit's newest series */
  codecs?: string;
  // No `reference`: the relative view is computed here (utils/relative.ts), so a
  // reference without results is an explained empty state, not a 404.
}

export const getTradeoff = (params: TradeoffParams, signal?: AbortSignal): Promise<Tradeoff> =>
  apiRequest<Tradeoff>('/tradeoff', { ...params }, { signal });

export const getTradeoffQueryOptions = (params: TradeoffParams) =>
  queryOptions({
    queryKey: ['tradeoff', params],
    queryFn: ({ signal }) => getTradeoff(params, signal),
    enabled: params.commit !== '' && params.machine !== '' && params.dataset !== '',
  });

/** One query per machine (the page overlays several machines). */
export const useTradeoffs = (list: TradeoffParams[]) =>
  useQueries({ queries: list.map((p) => getTradeoffQueryOptions(p)) });
