import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Candidate, CostModel, Recommendation } from '@/types/api';

/** The server ranks (measure/advise/ranking.py), the same engine as `basketbench advise`. */
export const postRecommend = (candidates: Candidate[], model: CostModel, signal?: AbortSignal): Promise<Recommendation> =>
  apiRequest<Recommendation>('/recommend', {}, { method: 'POST', body: { candidates, model }, signal });

export const useRecommendation = (candidates: Candidate[], model: CostModel) =>
  useQuery(
    queryOptions({
      queryKey: ['recommend', candidates, model],
      queryFn: ({ signal }) => postRecommend(candidates, model, signal),
      enabled: candidates.length > 0,
      // Keep the last ranking on screen while a slider's new one is computed.
      placeholderData: keepPreviousData,
    }),
  );
