import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Machine, Page } from '@/types/api';

export const getMachines = (params: { tag?: string }, signal?: AbortSignal): Promise<Page<Machine>> =>
  apiRequest<Page<Machine>>('/machines', { ...params, limit: 1000 }, { signal });

export const getMachinesQueryOptions = (params: { tag?: string } = {}) =>
  queryOptions({ queryKey: ['machines', params], queryFn: ({ signal }) => getMachines(params, signal), refetchInterval: 30_000 });

export const useMachines = (params: { tag?: string } = {}) => useQuery(getMachinesQueryOptions(params));
