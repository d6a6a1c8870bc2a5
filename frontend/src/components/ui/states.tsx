// Loading, error and empty states: every data view uses these three.
import type { ReactNode } from 'react';
import { ApiError } from '@/lib/api-client';

export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const message =
    error instanceof ApiError
      ? `${error.message} (HTTP ${error.status}, ${error.code})`
      : error instanceof Error
        ? error.message
        : String(error);
  return (
    <div className="state state-error" role="alert">
      <strong>Could not load data.</strong> {message}
      {retry && (
        <button type="button" className="btn btn-small" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

export const NO_RESULTS_HINT = (
  <>
    No results yet: run <code>make demo</code> or point a webhook at <code>/api/v1/webhooks/github</code>.
  </>
);

export function EmptyState({ children }: { children: ReactNode }) {
  return (
    <div className="state state-empty" data-testid="empty-state">
      {children}
    </div>
  );
}

interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  refetch: () => unknown;
}

/** Renders loading/error for a query, then children with its data. */
export function QueryView<T>({
  query,
  loadingLabel,
  children,
}: {
  query: QueryLike<T>;
  loadingLabel?: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Spinner label={loadingLabel} />;
  if (query.error) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  if (query.data === undefined) return null;
  return <>{children(query.data)}</>;
}
