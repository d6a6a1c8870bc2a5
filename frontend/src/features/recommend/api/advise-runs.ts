import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { AdviseRequest, AdviseRun, AdviseRuns } from '@/types/api';

/** The newest advise runs; polled while one is queued or running (its progress moves). */
export const useAdviseRuns = () =>
  useQuery(
    queryOptions({
      queryKey: ['advise-runs'],
      queryFn: ({ signal }) => apiRequest<AdviseRuns>('/advise', { limit: 20 }, { signal }),
      refetchInterval: (q) => (q.state.data?.items.some((r) => r.status === 'queued' || r.status === 'running') ? 2000 : false),
    }),
  );

/** A finished advise run's document (what `basketbench advise --json` writes). */
export const getAdvice = (runId: number, signal?: AbortSignal): Promise<unknown> => apiRequest<unknown>(`/advise/${runId}`, {}, { signal });

export const getAdviceQueryOptions = (runId: number) =>
  queryOptions({
    queryKey: ['advice', runId],
    queryFn: ({ signal }) => getAdvice(runId, signal),
    enabled: runId > 0,
  });

/** The advice of the run the URL names (?advise=), 0: none. */
export const useAdvice = (runId: number) => useQuery(getAdviceQueryOptions(runId));

export const useStartAdvise = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, token }: { body: AdviseRequest; token: string }) =>
      apiRequest<AdviseRun>('/advise', {}, { method: 'POST', body, token }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['advise-runs'] }),
  });
};
