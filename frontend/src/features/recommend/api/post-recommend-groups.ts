import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { CostModel, GroupSizes, GroupsRecommendation, SettingSpeeds } from '@/types/api';

/** Each branch's or type class's own recommendation, ranked by the CLI's engine on the server. */
export const postRecommendGroups = (groups: GroupSizes[], speeds: SettingSpeeds[], model: CostModel, signal?: AbortSignal): Promise<GroupsRecommendation> =>
  apiRequest<GroupsRecommendation>('/recommend/groups', {}, { method: 'POST', body: { groups, speeds, model }, signal });

export const useGroupRecommendation = (groups: GroupSizes[], speeds: SettingSpeeds[], model: CostModel) =>
  useQuery(
    queryOptions({
      queryKey: ['recommend-groups', groups, speeds, model],
      queryFn: ({ signal }) => postRecommendGroups(groups, speeds, model, signal),
      enabled: groups.length > 0 && speeds.length > 0,
      placeholderData: keepPreviousData,
    }),
  );
