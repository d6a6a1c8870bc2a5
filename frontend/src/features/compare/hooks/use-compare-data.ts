// The Compare page's data: its URL state, the defaults a bare link leaves open (written into
// the URL with replace), and the comparison the server answers for them.
import { useEffect } from 'react';
import { useCommit } from '@/api/get-commit';
import { useCommits, latestCommit } from '@/api/get-commits';
import { useCodecSeries } from '@/api/get-codec-series';
import { useDimensions } from '@/api/get-dimensions';
import { useUrlState } from '@/lib/url-state';
import { useCompare, type CompareParams } from '../api/get-compare';
import { compareSchema } from '../components/compare-state';
import { defaultPair } from '../utils/defaults';

export function useCompareData() {
  const [state, set] = useUrlState(compareSchema);
  const dims = useDimensions();
  // Defaults only (the two newest); the pickers search the whole history themselves.
  const commits = useCommits({ limit: 2 });
  const headCommit = useCommit(state.kind === 'commits' ? state.head : '');
  const baseCommit = useCommit(state.kind === 'commits' ? state.base : '');
  // The machine's codec series: defaults (two commits of one series) and suggestions.
  const machine = state.kind === 'commits' ? state.machine || dims.data?.machines[0] || '' : '';
  const machineSeries = useCodecSeries(machine);

  // Fill what a bare link leaves open: parent of head, latest commit, first machines.
  useEffect(() => {
    if (state.kind === 'commits' && state.head && !state.base && headCommit.data?.parents?.[0]) {
      set({ base: headCommit.data.parents[0] }, { replace: true });
    }
  }, [state.kind, state.head, state.base, headCommit.data, set]);
  useEffect(() => {
    if (!dims.data || !commits.data) return;
    const machines = dims.data.machines;
    if (state.kind === 'commits' && !state.head) {
      // base and head within one codec series (after `make demo`: the two ROOT releases)
      if (machine && machineSeries.isPending) return;
      const pair = defaultPair(machineSeries.data ?? [], commits.data.items);
      if (pair) set({ head: pair.head, base: pair.base, machine }, { replace: true });
    } else if (state.kind === 'commits' && !state.machine && machines[0]) {
      set({ machine: machines[0] }, { replace: true });
    } else if (state.kind === 'machines' && (!state.base || !state.head || !state.commit)) {
      set(
        {
          base: state.base || machines[0] || '',
          head: state.head || machines[1] || machines[0] || '',
          commit: state.commit || latestCommit(commits.data.items)?.sha || '',
        },
        { replace: true },
      );
    }
  }, [dims.data, commits.data, machine, machineSeries.isPending, machineSeries.data, state.kind, state.head, state.base, state.machine, state.commit, set]);

  const settingNumber = /^\d+$/.test(state.setting) ? Number(state.setting) : undefined;
  const view = { setting: settingNumber, only_significant: state.only || undefined, offset: state.offset || undefined };
  const params: CompareParams =
    state.kind === 'machines'
      ? { kind: 'machines', base_machine: state.base, head_machine: state.head, commit: state.commit, dataset: state.dataset || undefined, metric: state.metric || undefined, codecs: state.codecs || undefined, ...view }
      : { kind: 'commits', base_commit: state.base, head_commit: state.head, machine: state.machine, dataset: state.dataset || undefined, metric: state.metric || undefined, codecs: state.codecs || undefined, ...view };
  const compare = useCompare(params);

  return { state, set, dims, commits, headCommit, baseCommit, machineSeries, compare };
}
