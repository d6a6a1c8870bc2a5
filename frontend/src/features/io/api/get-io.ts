import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { IoBreakdown } from '@/types/api';

export interface IoParams {
  /** '': the newest commit with end-to-end I/O results on the machine */
  commit: string;
  machine: string;
  /** <file>/<tree>; undefined: the first the API has */
  data?: string;
}

export const getIoBreakdown = (params: IoParams, signal?: AbortSignal): Promise<IoBreakdown> =>
  apiRequest<IoBreakdown>('/io/breakdown', { machine: params.machine, data: params.data, ...(params.commit ? { commit: params.commit } : {}) }, { signal });

export const getIoQueryOptions = (params: IoParams) =>
  queryOptions({
    queryKey: ['io-breakdown', params],
    queryFn: ({ signal }) => getIoBreakdown(params, signal),
    enabled: params.machine !== '',
  });

export const useIoBreakdown = (params: IoParams) => useQuery(getIoQueryOptions(params));
