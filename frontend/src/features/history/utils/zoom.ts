// The history plots' x range (commit order) in the URL: "lo~hi"; '' = the whole range.
export type XRange = [number, number];

export function parseZoom(raw: string): XRange | null {
  const m = /^(-?\d+(?:\.\d+)?)~(-?\d+(?:\.\d+)?)$/.exec(raw.trim());
  if (!m) return null;
  const lo = Number(m[1]);
  const hi = Number(m[2]);
  return Number.isFinite(lo) && Number.isFinite(hi) && lo < hi ? [lo, hi] : null;
}

export function formatZoom(r: XRange | null): string {
  if (!r) return '';
  // commit orders are integers; keep one decimal of a partial commit so the view is the same
  const f = (v: number) => String(Math.round(v * 10) / 10);
  return `${f(r[0])}~${f(r[1])}`;
}

/** The x range of a Plotly relayout event: a new range, null for autorange, undefined if x did not change. */
export function xRangeOf(event: Record<string, unknown>): XRange | null | undefined {
  if (event['xaxis.autorange'] === true) return null;
  const lo = event['xaxis.range[0]'];
  const hi = event['xaxis.range[1]'];
  if (typeof lo === 'number' && typeof hi === 'number') return [lo, hi];
  const range = event['xaxis.range'];
  if (Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number') return [range[0], range[1]];
  return undefined;
}
