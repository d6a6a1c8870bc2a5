// Shared by the changes and runs pages: /health says which tags' speeds change
// detection left out (measured on a busy machine) and why.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Health } from '@/types/api';

export const getHealth = (signal?: AbortSignal): Promise<Health> => apiRequest<Health>('/health', {}, { signal });

export const getHealthQueryOptions = () =>
  queryOptions({ queryKey: ['health'], queryFn: ({ signal }) => getHealth(signal), staleTime: 30_000 });

export const useHealth = () => useQuery(getHealthQueryOptions());
