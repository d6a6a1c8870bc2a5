import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { BranchSizes } from '@/types/api';

export type GroupBy = 'type_class' | 'branch';

/** Stored per-branch sizes of a dataset on a commit (no groups when none were uploaded). */
export const getBranchSizes = (commit: string, dataset: string, groupBy: GroupBy, signal?: AbortSignal): Promise<BranchSizes> =>
  apiRequest<BranchSizes>('/branch-sizes', { commit, dataset, group_by: groupBy, allow_empty: true }, { signal });

export const useBranchSizes = (commit: string, dataset: string, groupBy: GroupBy, enabled: boolean) =>
  useQuery(
    queryOptions({
      queryKey: ['branch-sizes', commit, dataset, groupBy],
      queryFn: ({ signal }) => getBranchSizes(commit, dataset, groupBy, signal),
      enabled: enabled && commit !== '' && dataset !== '',
    }),
  );
