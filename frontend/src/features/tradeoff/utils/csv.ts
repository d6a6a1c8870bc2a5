// The trade-off CSV export: commit and dataset in every row, baseline rows marked.
import { settingLabel } from '@/lib/format';
import type { PlotPoint } from './relative';
import type { MachineSeries } from './traces';

/** The CSV columns; the speed columns are named after the axis shown (counts have no min/max). */
export const csvHeader = (metric: 'mbps' | 'instructions_per_mb') => [
  'commit', 'dataset', 'machine', 'setting', 'label', 'algorithm', 'level', 'ratio', 'compressed_bytes',
  `compress_${metric}_median`, `compress_${metric}_min`, `compress_${metric}_max`,
  `decompress_${metric}_median`, `decompress_${metric}_min`, `decompress_${metric}_max`, 'baseline',
];

export function csvRows(series: MachineSeries[], baseline: boolean, commit: string, dataset: string): (string | number | null)[][] {
  return series.flatMap((s) =>
    s.points.map((p: PlotPoint) => [
      commit, dataset, s.machine, p.setting, settingLabel(p.setting), p.algorithm, p.level, p.ratio, p.compressedBytes,
      p.compress, p.compressMin, p.compressMax, p.decompress, p.decompressMin, p.decompressMax, baseline ? 'yes' : 'no',
    ]),
  );
}
