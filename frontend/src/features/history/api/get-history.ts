import { queryOptions, useQueries } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { History } from '@/types/api';

export interface HistoryParams {
  machine: string;
  dataset: string;
  metric: string;
  setting: number;
  preconditioner: string;
  dictionary_size: number;
  basket_size: number;
  mode: string;
  threads: number;
  commit_from?: string;
  commit_to?: string;
  max_points: number;
  /** a codec series key or set name; undefined: the newest commit's series */
  codecs?: string;
}

export const getHistory = (params: HistoryParams, signal?: AbortSignal): Promise<History> =>
  apiRequest<History>('/history', { ...params }, { signal });

export const getHistoryQueryOptions = (params: HistoryParams) =>
  queryOptions({ queryKey: ['history', params], queryFn: ({ signal }) => getHistory(params, signal) });

export const useHistories = (list: HistoryParams[]) =>
  useQueries({ queries: list.map((p) => getHistoryQueryOptions(p)) });
