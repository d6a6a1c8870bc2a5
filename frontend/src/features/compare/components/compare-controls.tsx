// What to compare: two commits on a machine or two machines at a commit, then the filters.
import { CodecSeriesSelect } from '@/components/ui/codec-series-select';
import { CommitSelect } from '@/components/ui/commit-select';
import { CheckField, DeferredTextField, SelectField } from '@/components/ui/field';
import type { DimensionsView } from '@/api/get-dimensions';
import { METRIC_LABELS } from '@/lib/format';
import type { StateOf } from '@/lib/url-state';
import type { CodecSeries } from '@/types/api';
import type { compareSchema } from './compare-state';

type State = StateOf<typeof compareSchema>;

export function CompareControls({ state, set, dims: d, common }: {
  state: State;
  set: (patch: Partial<State>) => void;
  dims: DimensionsView;
  /** the codec series both sides were measured in */
  common: CodecSeries[];
}) {
  const machineOpts = d.machines.map((m) => ({ value: m }));
  return (
    <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="compare selection">
      <SelectField name="kind" label="Compare" value={state.kind}
        options={[{ value: 'commits', label: 'two commits' }, { value: 'machines', label: 'two machines' }]}
        onChange={(v) => set({ kind: v, base: '', head: '', codecs: '' })} />
      {state.kind === 'commits' ? (
        <>
          <CommitSelect name="base" label="Base commit" value={state.base} onChange={(v) => set({ base: v, codecs: '' })} />
          <CommitSelect name="head" label="Head commit" value={state.head} onChange={(v) => set({ head: v, codecs: '' })} />
          <SelectField name="machine" label="Machine" value={state.machine} options={machineOpts} onChange={(v) => set({ machine: v, codecs: '' })} />
        </>
      ) : (
        <>
          <SelectField name="base" label="Base machine" value={state.base} options={machineOpts} onChange={(v) => set({ base: v, codecs: '' })} />
          <SelectField name="head" label="Head machine" value={state.head} options={machineOpts} onChange={(v) => set({ head: v, codecs: '' })} />
          <CommitSelect name="commit" label="Commit" value={state.commit} onChange={(v) => set({ commit: v, codecs: '' })} />
        </>
      )}
      <CodecSeriesSelect value={state.codecs} series={common} emptyLabel="the newest series both sides have" onChange={(v) => set({ codecs: v , offset: 0 })} />
      <SelectField name="dataset" label="Dataset" value={state.dataset} allowEmpty="all" options={d.datasets.map((v) => ({ value: v }))} onChange={(v) => set({ dataset: v , offset: 0 })} />
      <SelectField name="metric" label="Metric" value={state.metric} allowEmpty="all"
        options={Object.entries(METRIC_LABELS).map(([value, label]) => ({ value, label }))} onChange={(v) => set({ metric: v , offset: 0 })} />
      <DeferredTextField name="setting" label="Setting" value={state.setting} placeholder="e.g. 505" onCommit={(v) => set({ setting: v , offset: 0 })} />
      <CheckField name="only" label="significant only" checked={state.only} onChange={(v) => set({ only: v , offset: 0 })} />
    </form>
  );
}
