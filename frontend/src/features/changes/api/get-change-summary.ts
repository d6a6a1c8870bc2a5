import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { ChangeSummaryPage } from '@/types/api';

export interface ChangeSummaryParams {
  status?: string;
  direction?: string;
  tag?: string;
  dataset?: string;
  setting?: number;
  codec?: string;
  metric?: string;
  commit?: string;
  include_unconfirmed?: boolean;
  limit?: number;
  offset?: number;
}

export const SUMMARY_PAGE = 50;

export const getChangeSummary = (params: ChangeSummaryParams, signal?: AbortSignal): Promise<ChangeSummaryPage> =>
  apiRequest<ChangeSummaryPage>('/changes/summary', { limit: SUMMARY_PAGE, ...params }, { signal });

export const useChangeSummary = (params: ChangeSummaryParams) =>
  useQuery({
    ...queryOptions({ queryKey: ['changes', 'summary', params], queryFn: ({ signal }) => getChangeSummary(params, signal) }),
    refetchInterval: 30_000,
  });
