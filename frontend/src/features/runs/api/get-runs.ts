import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Page, Queue, Run, WorkerTag } from '@/types/api';

export interface RunsParams {
  status?: string;
  tag?: string;
  /** "key" or "-key", sorted by the server over every run. */
  sort?: string;
  limit?: number;
  offset?: number;
}



export const getRuns = (params: RunsParams, signal?: AbortSignal): Promise<Page<Run>> =>
  apiRequest<Page<Run>>('/runs', { ...params }, { signal });

export const getRunsQueryOptions = (params: RunsParams) =>
  queryOptions({ queryKey: ['runs', params], queryFn: ({ signal }) => getRuns(params, signal), placeholderData: keepPreviousData });

const ACTIVE = new Set(['queued', 'running', 'pending', 'started']);

/** Live status: poll every 3 s while something is queued or running, else every 30 s. */
export const useRuns = (params: RunsParams) =>
  useQuery({
    ...getRunsQueryOptions(params),
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.items.some((r) => ACTIVE.has(r.status)) ? 3000 : 30_000),
  });

export const getQueues = (signal?: AbortSignal): Promise<Queue[]> => apiRequest<Queue[]>('/runs/queues', {}, { signal });

/** Per-tag queue counts computed by the server; polled like the runs list. */
export const useQueues = () =>
  useQuery({
    queryKey: ['runs', 'queues'],
    queryFn: ({ signal }) => getQueues(signal),
    staleTime: 0,
    refetchInterval: (query) => ((query.state.data ?? []).some((q) => (q.counts.queued ?? 0) + (q.counts.running ?? 0) > 0) ? 3000 : 30_000),
  });

export const getWorkerTags = (signal?: AbortSignal): Promise<WorkerTag[]> =>
  apiRequest<WorkerTag[]>('/worker-tags', {}, { signal });

/** Tags and their workers: which get runs, which have none live (expired runs). */
export const useWorkerTags = () =>
  useQuery({ queryKey: ['runs', 'worker-tags'], queryFn: ({ signal }) => getWorkerTags(signal), refetchInterval: 30_000 });
