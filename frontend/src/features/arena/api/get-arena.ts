import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { ArenaBoards, ArenaHistory } from '@/types/api';

/** Which (file, machine) pairs have a board: the newest runs without their rows. */
export const useArenaIndex = () =>
  useQuery(
    queryOptions({
      queryKey: ['arena-index'],
      queryFn: ({ signal }) => apiRequest<ArenaBoards>('/arena', { results: false, limit: 100 }, { signal }),
    }),
  );

export interface BoardParams {
  file: string;
  machine: string;
}

/** One file's board on one machine: every row, the per-shape ones included. */
export const useArenaBoard = (p: BoardParams | null) =>
  useQuery(
    queryOptions({
      queryKey: ['arena-board', p],
      queryFn: ({ signal }) => apiRequest<ArenaBoards>('/arena', { ...p!, shapes: true, limit: 1 }, { signal }),
      enabled: p !== null,
      placeholderData: keepPreviousData,
    }),
  );

export interface ArenaHistoryParams {
  file: string;
  machine: string;
  candidate: string;
  level: number;
  reference_setting: number;
  view: 'candidate' | 'mapping';
}

export const useArenaHistory = (p: ArenaHistoryParams | null) =>
  useQuery(
    queryOptions({
      queryKey: ['arena-history', p],
      queryFn: ({ signal }) => apiRequest<ArenaHistory>('/arena/history', { ...p! }, { signal }),
      enabled: p !== null,
      retry: false, // a row measured only on the host's layer has no history: a 404, said once
    }),
  );
