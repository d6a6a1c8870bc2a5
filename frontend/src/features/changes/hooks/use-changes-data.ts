// The Changes page's data: its URL state (the filter), the token for status changes, and the
// summary lines the server answers for the filter.
import { useState } from 'react';
import { useDimensions } from '@/api/get-dimensions';
import { loadToken } from '@/lib/token-storage';
import { useUrlState } from '@/lib/url-state';
import type { ChangesParams } from '../api/get-changes';
import { useChangeSummary } from '../api/get-change-summary';
import { changesSchema } from '../components/changes-state';

export function useChangesData() {
  const [state, set] = useUrlState(changesSchema);
  const [token, setToken] = useState(loadToken);
  const dims = useDimensions();
  const filter: ChangesParams = {
    status: state.status === 'any' ? undefined : state.status || undefined,
    direction: state.direction || undefined,
    tag: state.tag || undefined,
    commit: state.commit || undefined,
    include_unconfirmed: state.all || undefined,
    dataset: state.dataset || undefined,
    setting: /^\d+$/.test(state.setting) ? Number(state.setting) : undefined,
    codec: state.codec || undefined,
    metric: state.metric || undefined,
  };
  const summary = useChangeSummary({ ...filter, offset: state.offset || undefined });
  return { state, set, token, setToken, dims, filter, summary };
}
