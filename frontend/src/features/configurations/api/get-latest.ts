import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest, apiUrl } from '@/lib/api-client';
import type { LatestRow, Page } from '@/types/api';

export interface LatestParams {
  setting?: string;
  algorithm?: string;
  preconditioner?: string;
  dictionary_size?: string;
  basket_size?: string;
  mode?: string;
  threads?: string;
  dataset?: string;
  machine?: string;
  tag?: string;
  commit_to?: string;
  /** "key" or "-key": sorted on the server over every matching row, then paged. */
  sort?: string;
  limit: number;
  offset: number;
}

export const getLatest = (params: LatestParams, signal?: AbortSignal): Promise<Page<LatestRow>> =>
  apiRequest<Page<LatestRow>>('/configurations/latest', { ...params }, { signal });

/** The same query as CSV, served by the API itself (all rows, not just this page). */
export const latestCsvUrl = ({ limit: _l, offset: _o, ...filters }: LatestParams): string =>
  apiUrl('/configurations/latest', { ...filters, limit: 100_000, format: 'csv' });

export const getLatestQueryOptions = (params: LatestParams) =>
  queryOptions({
    queryKey: ['latest', params],
    queryFn: ({ signal }) => getLatest(params, signal),
    placeholderData: keepPreviousData,
  });

export const useLatest = (params: LatestParams) => useQuery(getLatestQueryOptions(params));
