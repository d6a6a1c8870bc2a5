import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { AbRequest, AbRequestIn, AbRequestPage } from '@/types/api';

export const isPending = (r: AbRequest | undefined): boolean => r !== undefined && (r.status === 'queued' || r.status === 'running');

/** The A/B requests of this pair of commits on the machine's tag, newest first; polled while
 * the newest is queued or running (its stage and progress move, then its A/B lands). */
export const getAbRequestsQueryOptions = (machine: string, base: string, head: string) =>
  queryOptions({
    queryKey: ['ab-requests', machine, base, head],
    queryFn: ({ signal }) => apiRequest<AbRequestPage>('/ab-requests', { machine, base_commit: base, head_commit: head, limit: 1 }, { signal }),
    enabled: Boolean(machine && base && head),
    refetchInterval: (q) => (isPending(q.state.data?.items[0]) ? 3000 : false),
  });

export const useAbRequests = (machine: string, base: string, head: string) => useQuery(getAbRequestsQueryOptions(machine, base, head));

/** POST /ab-requests (a token of scope `user`): queue the A/B, or get the one pending. */
export const useQueueAb = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, token }: { body: AbRequestIn; token: string }) => apiRequest<AbRequest>('/ab-requests', {}, { method: 'POST', body, token }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['ab-requests'] }),
  });
};
