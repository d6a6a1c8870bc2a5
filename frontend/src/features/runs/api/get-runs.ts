import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Page, Run } from '@/types/api';

export interface RunsParams {
  status?: string;
  tag?: string;
  limit?: number;
}

export const getRuns = (params: RunsParams, signal?: AbortSignal): Promise<Page<Run>> =>
  apiRequest<Page<Run>>('/runs', { ...params }, { signal });

export const getRunsQueryOptions = (params: RunsParams) =>
  queryOptions({ queryKey: ['runs', params], queryFn: ({ signal }) => getRuns(params, signal) });

const ACTIVE = new Set(['queued', 'running', 'pending', 'started']);

/** Live status: poll every 3 s while something is queued or running, else every 30 s. */
export const useRuns = (params: RunsParams) =>
  useQuery({
    ...getRunsQueryOptions(params),
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.items.some((r) => ACTIVE.has(r.status)) ? 3000 : 30_000),
  });
