import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Commit, Page } from '@/types/api';

export interface CommitsParams {
  repository?: string;
  branch?: string;
  q?: string;
  limit?: number;
  offset?: number;
}

export const getCommits = (params: CommitsParams): Promise<Page<Commit>> =>
  apiRequest<Page<Commit>>('/commits', { ...params });

export const getCommitsQueryOptions = (params: CommitsParams = {}) =>
  queryOptions({ queryKey: ['commits', params], queryFn: () => getCommits(params) });

export const useCommits = (params: CommitsParams = {}) => useQuery(getCommitsQueryOptions(params));

/** Newest commit in git order (highest `order`), whatever order the list comes in. */
export function latestCommit(commits: readonly Commit[]): Commit | undefined {
  let best: Commit | undefined;
  for (const c of commits) {
    if (!best || (c.order ?? -Infinity) > (best.order ?? -Infinity)) best = c;
  }
  return best;
}
