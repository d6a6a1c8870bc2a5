// Shared: the repositories (few), for their web pages (commit links).
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Page, Repository } from '@/types/api';

export const getRepositories = (): Promise<Page<Repository>> => apiRequest<Page<Repository>>('/repositories', { limit: 1000 });

export const getRepositoriesQueryOptions = () =>
  queryOptions({ queryKey: ['repositories'], queryFn: getRepositories, staleTime: 5 * 60_000 });

export const useRepositories = () => useQuery(getRepositoriesQueryOptions());
