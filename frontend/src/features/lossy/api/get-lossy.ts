import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { LossyColumns, LossyHistory, LossySweeps } from '@/types/api';

export const useLossySweeps = () =>
  useQuery(
    queryOptions({
      queryKey: ['lossy-sweeps'],
      queryFn: ({ signal }) => apiRequest<LossySweeps>('/lossy-sweeps', { limit: 200 }, { signal }),
    }),
  );

export interface ColumnsParams {
  sweep: number;
  setting?: number;
  column?: string;
}

export const useLossyColumns = (p: ColumnsParams) =>
  useQuery(
    queryOptions({
      queryKey: ['lossy-columns', p],
      queryFn: ({ signal }) =>
        apiRequest<LossyColumns>(`/lossy-sweeps/${p.sweep}`, { setting: p.setting, column: p.column }, { signal }),
      enabled: p.sweep > 0,
      placeholderData: keepPreviousData,
    }),
  );

export interface HistoryParams {
  file: string;
  column: string;
  representation: string;
  bits: number;
  setting: number;
}

export const useLossyHistory = (p: HistoryParams | null) =>
  useQuery(
    queryOptions({
      queryKey: ['lossy-history', p],
      queryFn: ({ signal }) => apiRequest<LossyHistory>('/lossy/history', { ...p! }, { signal }),
      enabled: p !== null,
    }),
  );
