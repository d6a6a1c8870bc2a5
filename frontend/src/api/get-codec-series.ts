// Shared: the codec series a machine measured, with their newest commits (compare's
// default pair, history's and trade-off's pickers name them).
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { CodecSeries } from '@/types/api';

export const getCodecSeries = (machine: string): Promise<CodecSeries[]> => apiRequest<CodecSeries[]>('/codec-series', { machine });

export const getCodecSeriesQueryOptions = (machine: string) =>
  queryOptions({ queryKey: ['codec-series', machine], queryFn: () => getCodecSeries(machine), enabled: machine !== '' });

export const useCodecSeries = (machine: string) => useQuery(getCodecSeriesQueryOptions(machine));
