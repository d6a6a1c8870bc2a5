import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, apiRequest } from '@/lib/api-client';
import type { BranchSizes } from '@/types/api';

export type GroupBy = 'type_class' | 'branch';

/** Stored per-branch sizes of a dataset on a commit; null when none were uploaded (404). */
export const getBranchSizes = async (commit: string, dataset: string, groupBy: GroupBy, signal?: AbortSignal): Promise<BranchSizes | null> => {
  try {
    return await apiRequest<BranchSizes>('/branch-sizes', { commit, dataset, group_by: groupBy }, { signal });
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
};

export const useBranchSizes = (commit: string, dataset: string, groupBy: GroupBy, enabled: boolean) =>
  useQuery(
    queryOptions({
      queryKey: ['branch-sizes', commit, dataset, groupBy],
      queryFn: ({ signal }) => getBranchSizes(commit, dataset, groupBy, signal),
      enabled: enabled && commit !== '' && dataset !== '',
    }),
  );
