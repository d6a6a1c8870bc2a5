import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { BulkStatusIn, BulkStatusOut } from '@/types/api';

export const setManyStatuses = (body: BulkStatusIn, token: string): Promise<BulkStatusOut> =>
  apiRequest<BulkStatusOut>('/changes/status', {}, { method: 'POST', body, token });

export const useSetManyStatuses = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, token }: { body: BulkStatusIn; token: string }) => setManyStatuses(body, token),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['changes'] }),
  });
};
