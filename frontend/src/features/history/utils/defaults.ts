// What the History page plots when the URL names no series, and what "Add a series" adds.
import type { DimensionsView } from '@/api/get-dimensions';
import type { SeriesKey } from './series';

export /** The first dataset of real ROOT baskets (a newcomer's first plot), else the first one. */
function firstDataset(d: DimensionsView): string {
  return d.datasets.find((ds) => !d.synthetic_datasets.includes(ds)) ?? d.datasets[0] ?? '';
}

export /** A new series: the last one's dataset, machine and metric with the next setting. */
function nextSeries(last: SeriesKey | undefined, d: DimensionsView): SeriesKey {
  const settings = d.settings;
  if (!last) return { setting: settings.includes(505) ? 505 : (settings[0] ?? 505), dataset: firstDataset(d), machine: d.machines[0] ?? '', metric: 'compress_mbps' };
  const at = settings.indexOf(last.setting);
  return { ...last, color: undefined, setting: settings[(at + 1) % Math.max(1, settings.length)] ?? last.setting };
}
