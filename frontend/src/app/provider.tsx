import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { createQueryClient } from '@/lib/react-query';

/** One client per page load, created before React renders so that main.tsx can start the
 * route's first queries in it (app/prefetch.ts). */
export const queryClient = createQueryClient();

export function AppProvider({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
