import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Compare } from '@/types/api';

export type CompareParams =
  | { kind: 'commits'; base_commit: string; head_commit: string; machine: string; dataset?: string; metric?: string; codecs?: string }
  | { kind: 'machines'; base_machine: string; head_machine: string; commit: string; dataset?: string; metric?: string; codecs?: string };

export const getCompare = ({ kind: _kind, ...params }: CompareParams, signal?: AbortSignal): Promise<Compare> =>
  apiRequest<Compare>('/compare', params, { signal });

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
