import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { TriggerRequest, TriggerResponse } from '@/types/api';

export const triggerRun = (body: TriggerRequest, token: string): Promise<TriggerResponse> =>
  apiRequest<TriggerResponse>('/trigger', {}, { method: 'POST', body, token });

export const useTriggerRun = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, token }: { body: TriggerRequest; token: string }) => triggerRun(body, token),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['runs'] }),
  });
};
