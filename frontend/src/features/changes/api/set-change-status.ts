import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { ChangeDetail, ChangeStatusIn } from '@/types/api';

export const setChangeStatus = (id: number, body: ChangeStatusIn, token: string): Promise<ChangeDetail> =>
  apiRequest<ChangeDetail>(`/changes/${id}`, {}, { method: 'PATCH', body, token });

export const useSetChangeStatus = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body, token }: { id: number; body: ChangeStatusIn; token: string }) => setChangeStatus(id, body, token),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['changes'] }),
  });
};
