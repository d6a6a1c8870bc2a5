import { createBrowserRouter, Navigate, RouterProvider, useRouteError } from 'react-router';
import { ArenaPage } from '@/features/arena/components/arena-page';
import { ChangesPage } from '@/features/changes/components/changes-page';
import { ComparePage } from '@/features/compare/components/compare-page';
import { ConfigurationsPage } from '@/features/configurations/components/configurations-page';
import { IoPage } from '@/features/io/components/io-page';
import { LossyPage } from '@/features/lossy/components/lossy-page';
import { HistoryPage } from '@/features/history/components/history-page';
import { RecommendPage } from '@/features/recommend/components/recommend-page';
import { MachinesPage } from '@/features/machines/components/machines-page';
import { RunsPage } from '@/features/runs/components/runs-page';
import { TradeoffPage } from '@/features/tradeoff/components/tradeoff-page';
import { ErrorState, EmptyState } from '@/components/ui/states';
import { paths } from '@/config/paths';
import { Layout } from './layout';

function RouteError() {
  return <ErrorState error={useRouteError()} />;
}

const router = createBrowserRouter([
  {
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <Navigate to={paths.tradeoffs.path} replace /> },
      { path: paths.tradeoffs.path, element: <TradeoffPage /> },
      { path: paths.history.path, element: <HistoryPage /> },
      { path: paths.compare.path, element: <ComparePage /> },
      { path: paths.changes.path, element: <ChangesPage /> },
      { path: paths.recommend.path, element: <RecommendPage /> },
      { path: paths.runs.path, element: <RunsPage /> },
      { path: paths.machines.path, element: <MachinesPage /> },
      { path: paths.configurations.path, element: <ConfigurationsPage /> },
      { path: paths.io.path, element: <IoPage /> },
      { path: paths.lossy.path, element: <LossyPage /> },
      { path: paths.arena.path, element: <ArenaPage /> },
      { path: '*', element: <EmptyState>Page not found. Use the navigation above.</EmptyState> },
    ],
  },
]);

export function AppRouter() {
  return <RouterProvider router={router} />;
}
