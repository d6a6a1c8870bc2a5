import type { DimensionsView } from '@/api/get-dimensions';
import { SelectField } from '@/components/ui/field';
import { METRIC_LABELS, settingLabel } from '@/lib/format';
import { METRICS, type SeriesKey } from '../utils/series';

/** The fields of one plotted series, bound to it: what they show is what is plotted. */
export function SeriesFields({ prefix, value, dims, onChange }: {
  prefix: string;
  value: SeriesKey;
  dims: DimensionsView;
  onChange: (patch: Partial<SeriesKey>) => void;
}) {
  return (
    <>
      <SelectField name={`${prefix}_setting`} label="Setting" value={String(value.setting)}
        options={dims.settings.map((s) => ({ value: String(s), label: `${settingLabel(s)} (${s})` }))}
        onChange={(v) => onChange({ setting: Number(v) })} />
      <SelectField name={`${prefix}_dataset`} label="Dataset" value={value.dataset} options={dims.datasets.map((v) => ({ value: v }))}
        onChange={(v) => onChange({ dataset: v })} />
      <SelectField name={`${prefix}_machine`} label="Machine" value={value.machine} options={dims.machines.map((v) => ({ value: v }))}
        onChange={(v) => onChange({ machine: v })} />
      <SelectField name={`${prefix}_metric`} label="Metric" value={value.metric}
        options={METRICS.map((m) => ({ value: m, label: METRIC_LABELS[m] ?? m }))}
        onChange={(v) => onChange({ metric: v })} />
    </>
  );
}
