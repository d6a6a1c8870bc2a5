import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Commit } from '@/types/api';

export const getCommit = (sha: string): Promise<Commit> => apiRequest<Commit>(`/commits/${encodeURIComponent(sha)}`);

export const getCommitQueryOptions = (sha: string) =>
  queryOptions({ queryKey: ['commit', sha], queryFn: () => getCommit(sha), enabled: sha !== '', staleTime: Infinity });

export const useCommit = (sha: string) => useQuery(getCommitQueryOptions(sha));
