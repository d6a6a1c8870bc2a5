// The trade-off page's data: its URL state with the defaults resolved into it, and the
// trade-off of each machine (and of the baseline) as plotted series.
import { useEffect, useMemo } from 'react';
import { useCommits, latestCommit } from '@/api/get-commits';
import { useDimensions } from '@/api/get-dimensions';
import { useTradeoffs } from '@/api/get-tradeoff';
import { cleanList, useUrlState, type StateOf } from '@/lib/url-state';
import { tradeoffSchema } from '../components/tradeoff-state';
import { paramsFor, seriesOf } from '../utils/series';

type State = StateOf<typeof tradeoffSchema>;

export function useTradeoffData() {
  const [state, set] = useUrlState(tradeoffSchema);
  const dims = useDimensions();
  // The newest commit is the default; the pickers search the whole history themselves.
  const commits = useCommits({ limit: 1 });
  const machines = cleanList(state.machine);

  // Resolve defaults into the URL once (replace, no history entry) so the link pins the view.
  useEffect(() => {
    if (!dims.data || !commits.data) return;
    const patch: Partial<State> = {};
    if (!state.commit) {
      const latest = latestCommit(commits.data.items);
      if (latest) patch.commit = latest.sha;
    }
    if (state.machine.length === 0 && dims.data.machines[0]) patch.machine = [dims.data.machines[0]];
    // Open on real baskets (a ROOT file), not on a synthetic generator.
    const real = dims.data.datasets.find((d) => !dims.data.synthetic_datasets.includes(d));
    if (!state.dataset && (real ?? dims.data.datasets[0])) patch.dataset = real ?? dims.data.datasets[0] ?? '';
    if (Object.keys(patch).length) set(patch, { replace: true });
  }, [dims.data, commits.data, state.commit, state.machine.length, state.dataset, set]);

  const currentParams = machines.map((m) => paramsFor(state, state.commit, m));
  // One baseline at a time: another commit, another machine, or another dataset (e.g. the
  // RNTuple form of a TTree dataset, same commit and machines).
  const baselineParams = state.base_dataset
    ? machines.map((m) => paramsFor(state, state.commit, m, state.base_dataset))
    : state.base_commit
      ? machines.map((m) => paramsFor(state, state.base_commit, m))
      : state.base_machine
        ? [paramsFor(state, state.commit, state.base_machine)]
        : [];
  const currentQ = useTradeoffs(currentParams);
  const baselineQ = useTradeoffs(baselineParams);

  const current = useMemo(
    () => currentQ.flatMap((q, i) => (q.data ? [seriesOf(q.data, currentParams[i]?.machine ?? '', state)] : [])),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- data identity is stable per query
    [currentQ.map((q) => q.dataUpdatedAt).join(), state.rel, state.ref, state.axis],
  );
  const baselineLabel = (i: number) =>
    state.base_dataset ? `${baselineParams[i]?.machine ?? ''} · ${state.base_dataset}` : (baselineParams[i]?.machine ?? '');
  const baseline = useMemo(
    () => baselineQ.flatMap((q, i) => (q.data ? [seriesOf(q.data, baselineLabel(i), state)] : [])),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- data identity is stable per query
    [baselineQ.map((q) => q.dataUpdatedAt).join(), state.rel, state.ref, state.base_dataset, state.axis],
  );

  return { state, set, dims, commits, machines, currentQ, baselineQ, current, baseline };
}
