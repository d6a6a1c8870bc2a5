// Status buttons of one change or of many (a line's, a commit's changes).
import { Fragment } from 'react';
import type { Change } from '@/types/api';
import { useSetChangeStatus } from '../api/set-change-status';
import { useSetManyStatuses } from '../api/set-many-statuses';

const NEEDS_TOKEN = 'needs a token: enter an API token in the Token field';

type Status = 'acknowledged' | 'fixed' | 'ignored' | 'open';
const ACTIONS: [Status, string][] = [
  ['acknowledged', 'acknowledge'],
  ['fixed', 'fixed'],
  ['ignored', 'ignore'],
  ['open', 'reopen'],
];

/** Status buttons; without a token they look disabled and say why. */
function StatusButtons({ token, pending, hide, onAct, error }: { token: string; pending: boolean; hide: (s: Status) => boolean; onAct: (s: Status) => void; error: Error | null }) {
  return (
    <span className="actions">
      {ACTIONS.filter(([s]) => !hide(s)).map(([s, label]) => (
        <Fragment key={s}>
          <button type="button" className="btn btn-small" disabled={!token || pending} title={token ? undefined : NEEDS_TOKEN} onClick={() => onAct(s)}>
            {label}
          </button>{' '}
        </Fragment>
      ))}
      {!token && <span className="muted hint" data-testid="needs-token">needs a token</span>}
      {error && <span className="error-text"> {error.message}</span>}
    </span>
  );
}

/** The reason for a status: required for fixed and ignored; null = cancelled. */
function askReason(status: Status, what: string): string | null {
  if (status !== 'fixed' && status !== 'ignored') return '';
  const reason = window.prompt(`Why ${what} ${status}?`);
  return reason && reason.trim() ? reason : null;
}

export function StatusActions({ change, token }: { change: Change; token: string }) {
  const mutation = useSetChangeStatus();
  const act = (status: Status) => {
    const reason = askReason(status, 'is this change');
    if (reason === null) return;
    mutation.mutate({ id: change.id, body: { status, reason: reason || null }, token });
  };
  return <StatusButtons token={token} pending={mutation.isPending} hide={(s) => s === change.status || (s === 'open' && change.status === 'open')} onAct={act} error={mutation.error} />;
}

export function BulkActions({ ids, token, what, testId }: { ids: number[]; token: string; what: string; testId: string }) {
  const mutation = useSetManyStatuses();
  const act = (status: Status) => {
    const reason = askReason(status, `are these ${ids.length} changes`);
    if (reason === null) return;
    mutation.mutate({ body: { change_ids: ids, status, reason: reason || null }, token });
  };
  return (
    <span className="bulk" data-testid={testId}>
      <span className="muted">{what}:</span> <StatusButtons token={token} pending={mutation.isPending} hide={(s) => s === 'open'} onAct={act} error={mutation.error} />
    </span>
  );
}
