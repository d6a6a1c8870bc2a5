import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { MachineCodecSet } from '@/types/api';

export const getMachineCodecSets = (machineId: number, signal?: AbortSignal): Promise<MachineCodecSet[]> =>
  apiRequest<MachineCodecSet[]>(`/machines/${machineId}/codec-sets`, {}, { signal });

export const useMachineCodecSets = (machineId: number, enabled: boolean) =>
  useQuery(
    queryOptions({
      queryKey: ['machines', machineId, 'codec-sets'],
      queryFn: ({ signal }) => getMachineCodecSets(machineId, signal),
      enabled,
    }),
  );
