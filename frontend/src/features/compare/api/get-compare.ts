import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Compare } from '@/types/api';

/** What the table shows: one size row per series, decided changes first, one page. */
export interface CompareView {
  setting?: number;
  only_significant?: boolean;
  offset?: number;
  limit?: number;
}

export const COMPARE_PAGE = 100;

export type CompareParams = (
  | { kind: 'commits'; base_commit: string; head_commit: string; machine: string; dataset?: string; metric?: string; codecs?: string }
  | { kind: 'machines'; base_machine: string; head_machine: string; commit: string; dataset?: string; metric?: string; codecs?: string }
) &
  CompareView;

export const getCompare = ({ kind: _kind, ...params }: CompareParams, signal?: AbortSignal): Promise<Compare> =>
  apiRequest<Compare>('/compare', { merged: true, order: 'decided', limit: COMPARE_PAGE, ...params }, { signal });

function ready(p: CompareParams): boolean {
  return p.kind === 'commits'
    ? Boolean(p.base_commit && p.head_commit && p.machine)
    : Boolean(p.base_machine && p.head_machine && p.commit);
}

export const getCompareQueryOptions = (params: CompareParams) =>
  queryOptions({
    queryKey: ['compare', params],
    queryFn: ({ signal }) => getCompare(params, signal),
    enabled: ready(params),
  });

export const useCompare = (params: CompareParams) => useQuery(getCompareQueryOptions(params));
