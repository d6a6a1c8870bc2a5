import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { ChangeDetail } from '@/types/api';

export const getChange = (id: number, signal?: AbortSignal): Promise<ChangeDetail> =>
  apiRequest<ChangeDetail>(`/changes/${id}`, {}, { signal });

export const getChangeQueryOptions = (id: number) =>
  queryOptions({ queryKey: ['changes', 'detail', id], queryFn: ({ signal }) => getChange(id, signal) });

export const useChange = (id: number | null) => useQuery({ ...getChangeQueryOptions(id ?? 0), enabled: id !== null });
