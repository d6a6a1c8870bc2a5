// The Recommend plot: every ranked setting (Pareto ones filled), the recommended one starred.
import type { Data } from 'plotly.js';
import { settingLabel } from '@/lib/format';
import type { RankedSetting } from '@/types/api';

/** A setting as the CSV names it: 505, or 505+shuffle with a preconditioner. */
export function rankLabel(c: { setting: number; preconditioner: string }): string {
  return c.preconditioner === 'none' ? String(c.setting) : `${c.setting}+${c.preconditioner}`;
}

export function recommendTraces(ranking: readonly RankedSetting[]): Data[] {
  const best = ranking[0];
  return [
    {
      type: 'scatter',
      mode: 'text+markers',
      name: 'measured',
      x: ranking.map((r) => r.decompress_mb_s),
      y: ranking.map((r) => r.ratio),
      text: ranking.map((r) => `${settingLabel(r.setting)}${r.preconditioner === 'none' ? '' : `+${r.preconditioner}`}`),
      textposition: 'top center',
      marker: { size: 9, symbol: ranking.map((r) => (r.pareto ? 'circle' : 'circle-open')) },
      hovertemplate: '%{text}<br>ratio %{y:.3f}<br>decompression %{x:.1f} MB/s<extra></extra>',
    },
    ...(best
      ? [
          {
            type: 'scatter' as const,
            mode: 'markers' as const,
            name: `recommended: ${settingLabel(best.setting)}`,
            x: [best.decompress_mb_s],
            y: [best.ratio],
            marker: { size: 20, symbol: 'star', color: '#d4a017', line: { width: 1, color: '#1f2328' } },
            hoverinfo: 'skip' as const,
          },
        ]
      : []),
  ];
}

/** The ranking as the plot's CSV export. */
export function rankingCsv(ranking: readonly RankedSetting[]) {
  return {
    header: ['rank', 'setting', 'compressed_bytes', 'ratio', 'compress_mb_s', 'decompress_mb_s', 'cost_storage', 'cost_write', 'cost_read', 'cost_total', 'pareto'],
    rows: ranking.map((r) => [r.rank, rankLabel(r), r.compressed_bytes, r.ratio, r.compress_mb_s, r.decompress_mb_s, r.cost_storage, r.cost_write, r.cost_read, r.cost_total, r.pareto ? 'yes' : 'no']),
  };
}
