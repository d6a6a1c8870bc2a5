import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { SpeedEvidence } from '@/types/api';

/** The speeds to rank a commit's settings with and their evidence (A/B, the commit's runs, one run). */
export const getSpeeds = (machine: string, dataset: string, commit: string, signal?: AbortSignal): Promise<SpeedEvidence> =>
  apiRequest<SpeedEvidence>('/recommend/speeds', { machine, dataset, commit }, { signal });

export const useSpeedEvidence = (machine: string, dataset: string, commit: string, enabled: boolean) =>
  useQuery(
    queryOptions({
      queryKey: ['recommend-speeds', machine, dataset, commit],
      queryFn: ({ signal }) => getSpeeds(machine, dataset, commit, signal),
      enabled: enabled && machine !== '' && dataset !== '' && commit !== '',
      retry: false,
    }),
  );
