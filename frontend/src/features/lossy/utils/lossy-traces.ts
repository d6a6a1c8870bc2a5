// Plot data of the lossy floats page: for one column at one setting, every representation as a
// point of (largest relative error, compressed bytes), one trace per kind so trunc and quant
// read as curves over their bit widths; full sits at error 0, drawn at the axis' floor.
import type { Data } from 'plotly.js';
import type { LossyPoint } from '@/types/api';

export const KINDS = ['full', 'half', 'trunc', 'quant'] as const;

/** Error axis floor: log axes cannot show 0, so exact values are drawn here and labelled. */
export const ERROR_FLOOR = 1e-9;

export function label(p: { representation: string; bits: number }): string {
  return p.representation === 'full' || p.representation === 'half' ? p.representation : `${p.representation}${p.bits}`;
}

export function columnPoints(points: readonly LossyPoint[], column: string): LossyPoint[] {
  return points.filter((p) => p.column === column).sort((a, b) => (a.representation === b.representation ? a.bits - b.bits : a.representation.localeCompare(b.representation)));
}

export function tradeoffTraces(points: readonly LossyPoint[]): Data[] {
  return KINDS.flatMap((kind) => {
    const rows = points.filter((p) => p.representation === kind).sort((a, b) => a.bits - b.bits);
    if (!rows.length) return [];
    return [
      {
        type: 'scatter' as const,
        mode: kind === 'trunc' || kind === 'quant' ? ('text+lines+markers' as const) : ('text+markers' as const),
        name: kind,
        x: rows.map((p) => Math.max(p.max_rel_error, ERROR_FLOOR)),
        y: rows.map((p) => p.compressed_bytes),
        text: rows.map(label),
        textposition: 'top center' as const,
        customdata: rows.map((p) => [p.saved_pct, p.max_abs_error, p.rms_rel_error]),
        hovertemplate:
          '%{text}: %{y:,} bytes (%{customdata[0]:.1f} % saved)<br>largest relative error %{x:.2e}' +
          '<br>largest absolute %{customdata[1]:.3g}, RMS relative %{customdata[2]:.2e}<extra></extra>',
      },
    ];
  });
}

/** The representations that save the most bytes for their error: none is both larger and less precise. */
export function frontier(points: readonly LossyPoint[]): LossyPoint[] {
  return points.filter((p) => !points.some((q) => q !== p && q.compressed_bytes <= p.compressed_bytes && q.max_rel_error <= p.max_rel_error && (q.compressed_bytes < p.compressed_bytes || q.max_rel_error < p.max_rel_error)));
}
