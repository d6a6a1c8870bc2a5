import { CommitSelect } from '@/components/ui/commit-select';
import { CodecSeriesSelect } from '@/components/ui/codec-series-select';
import type { CodecSeries } from '@/types/api';
import { CheckField, MultiSelectField, SelectField } from '@/components/ui/field';
import { settingLabel } from '@/lib/format';
import type { StateOf } from '@/lib/url-state';
import type { DimensionsView } from '@/api/get-dimensions';
import { datasetKindLabel } from '@/lib/dataset-kind';
import type { tradeoffSchema } from './tradeoff-state';

type State = StateOf<typeof tradeoffSchema>;

const opts = (values: readonly (string | number)[], label?: (v: string) => string) =>
  values.map((v) => ({ value: String(v), label: label ? label(String(v)) : String(v) }));

export function TradeoffControls({
  state,
  set,
  dims,
  codecSeries,
}: {
  state: State;
  set: (patch: Partial<State>) => void;
  dims: DimensionsView;
  /** the codec series of the commit on the chosen machines */
  codecSeries: readonly CodecSeries[];
}) {
  const kb = (v: string) => (v === '0' ? 'as in file' : `${Number(v) / 1000} kB`);
  const kindOf = (v: string) => `${v} (${datasetKindLabel(v, dims.synthetic_datasets, dims.dataset_kinds)})`;
  return (
    <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="trade-off selection">
      <CommitSelect name="commit" label="Commit" value={state.commit} onChange={(v) => set({ commit: v, codecs: '' })} />
      <SelectField name="dataset" label="Dataset" value={state.dataset}
        options={[...dims.datasets]
          .sort((a, b) => Number(dims.synthetic_datasets.includes(a)) - Number(dims.synthetic_datasets.includes(b)) || a.localeCompare(b))
          .map((v) => ({ value: v, label: kindOf(v) }))}
        onChange={(v) => set({ dataset: v })} />
      <MultiSelectField name="machine" label="Machines" values={state.machine} options={opts(dims.machines)} onChange={(v) => set({ machine: v })} />
      <CodecSeriesSelect value={state.codecs} series={codecSeries} emptyLabel="the commit's newest series" onChange={(v) => set({ codecs: v })} />
      <SelectField name="pre" label="Preconditioner" value={state.pre} options={opts(dims.preconditioners)} onChange={(v) => set({ pre: v })} />
      <SelectField
        name="dict"
        label="Dictionary"
        value={String(state.dict)}
        options={opts(dims.dictionary_sizes, (v) => (v === '0' ? 'none' : `${Number(v) / 1000} kB`))}
        onChange={(v) => set({ dict: Number(v) })}
      />
      <SelectField name="basket" label="Basket size" value={String(state.basket)} options={opts(dims.basket_sizes, kb)} onChange={(v) => set({ basket: Number(v) })} />
      <SelectField name="threads" label="Threads" value={String(state.threads)} options={opts(dims.threads)} onChange={(v) => set({ threads: Number(v) })} />
      <SelectField name="mode" label="Mode" value={state.mode} options={opts(dims.modes)} onChange={(v) => set({ mode: v })} />
      <SelectField
        name="axis"
        label="Speed axis"
        value={state.axis}
        options={[
          { value: 'mbps', label: 'MB/s' },
          { value: 'instructions', label: 'instructions per MB' },
        ]}
        onChange={(v) => set({ axis: v })}
      />
      <div className="field-group">
        <CheckField name="rel" label="Relative to" checked={state.rel} onChange={(v) => set({ rel: v })} />
        <SelectField
          name="ref"
          label="Reference"
          value={String(state.ref)}
          options={opts(dims.settings, (v) => `${settingLabel(Number(v))} (${v})`)}
          onChange={(v) => set({ ref: Number(v) })}
        />
      </div>
      <CommitSelect name="base_commit" label="Baseline commit" value={state.base_commit} onChange={(v) => set({ base_commit: v, base_machine: '', base_dataset: '' })} />
      {state.base_commit && (
        <button type="button" className="btn btn-small" onClick={() => set({ base_commit: '' })}>
          no baseline commit
        </button>
      )}
      <SelectField
        name="base_machine"
        label="Baseline machine"
        value={state.base_machine}
        allowEmpty="none"
        options={opts(dims.machines)}
        onChange={(v) => set({ base_machine: v, base_commit: '', base_dataset: '' })}
      />
      <SelectField
        name="base_dataset"
        label="Beside dataset"
        value={state.base_dataset}
        allowEmpty="none"
        options={dims.datasets.filter((v) => v !== state.dataset && !dims.synthetic_datasets.includes(v)).map((v) => ({ value: v, label: kindOf(v) }))}
        onChange={(v) => set({ base_dataset: v, base_commit: '', base_machine: '' })}
      />
    </form>
  );
}
