// The history plots' x range (commit order) in the URL: "lo~hi"; '' = the whole range.
import { axisRangeOf, formatRange, parseRange, type AxisRange } from '@/lib/zoom';

export type XRange = AxisRange;

export const parseZoom = parseRange;

// commit orders are integers; keep one decimal of a partial commit so the view is the same
export const formatZoom = (r: XRange | null): string => formatRange(r, (v) => Math.round(v * 10) / 10);

/** The x range of a Plotly relayout event: a new range, null for autorange, undefined if x did not change. */
export const xRangeOf = (event: Record<string, unknown>): XRange | null | undefined => axisRangeOf(event, 'xaxis');
