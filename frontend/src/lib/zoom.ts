// A plot axis's zoom in the URL: "lo~hi" ('' = the whole range), and how Plotly reports it.
export type AxisRange = [number, number];

export function parseRange(raw: string): AxisRange | null {
  const m = /^(-?\d+(?:\.\d+)?(?:e-?\d+)?)~(-?\d+(?:\.\d+)?(?:e-?\d+)?)$/.exec(raw.trim());
  if (!m) return null;
  const lo = Number(m[1]);
  const hi = Number(m[2]);
  return Number.isFinite(lo) && Number.isFinite(hi) && lo < hi ? [lo, hi] : null;
}

/** `round` keeps links short: enough digits that the restored view is the same. */
export function formatRange(r: AxisRange | null, round: (v: number) => number = (v) => Number(v.toPrecision(5))): string {
  return r ? `${round(r[0])}~${round(r[1])}` : '';
}

/**
 * The range of one axis in a Plotly relayout event: a new range, null for autorange
 * (double click, "autoscale"), undefined when that axis did not change.
 */
export function axisRangeOf(event: Record<string, unknown>, axis: 'xaxis' | 'yaxis'): AxisRange | null | undefined {
  if (event[`${axis}.autorange`] === true) return null;
  const lo = event[`${axis}.range[0]`];
  const hi = event[`${axis}.range[1]`];
  if (typeof lo === 'number' && typeof hi === 'number') return [lo, hi];
  const range = event[`${axis}.range`];
  if (Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number') return [range[0], range[1]];
  return undefined;
}

/** Plotly axis settings for a range from the URL: fixed, or autorange when none. */
export function axisRange(r: AxisRange | null): { range?: [number, number]; autorange: boolean } {
  return r ? { range: [r[0], r[1]], autorange: false } : { autorange: true };
}
