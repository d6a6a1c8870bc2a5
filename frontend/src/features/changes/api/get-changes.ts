import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Change, Page } from '@/types/api';

export interface ChangesParams {
  status?: string;
  direction?: string;
  tag?: string;
  metric?: string;
  commit?: string;
  machine?: string;
  dataset?: string;
  setting?: number;
  codec?: string;
  include_unconfirmed?: boolean;
  limit?: number;
}

export const getChanges = (params: ChangesParams, signal?: AbortSignal): Promise<Page<Change>> =>
  apiRequest<Page<Change>>('/changes', { ...params }, { signal });

export const getChangesQueryOptions = (params: ChangesParams) =>
  queryOptions({ queryKey: ['changes', params], queryFn: ({ signal }) => getChanges(params, signal) });

export const useChanges = (params: ChangesParams) => useQuery({ ...getChangesQueryOptions(params), refetchInterval: 30_000 });
