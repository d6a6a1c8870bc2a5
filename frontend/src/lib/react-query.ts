import { QueryClient, type DefaultOptions } from '@tanstack/react-query';
import { ApiError } from './api-client';

const queryConfig: DefaultOptions = {
  queries: {
    // Benchmark results change only when a run finishes: no refetch storms.
    refetchOnWindowFocus: false,
    staleTime: 60_000,
    // 4xx answers are final (bad filter, unknown sha); retry only network/5xx.
    retry: (failureCount, error) =>
      !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failureCount < 2,
  },
};

export function createQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: queryConfig });
}
