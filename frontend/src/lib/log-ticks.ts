// Readable ticks for a log axis: 1-2-5 steps written in full ("20", "50", "100", "200"), not
// Plotly's default minor labels ("3 ... 9 100 2 3").

const fmt = (v: number) => (v >= 1 ? v.toLocaleString('en-US', { maximumFractionDigits: 0 }) : String(Number(v.toPrecision(1))));

/** tickvals and ticktext for a log axis covering `values` (positive ones). */
export function logTicks(values: readonly number[]): { tickvals: number[]; ticktext: string[] } {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  if (positive.length === 0) return { tickvals: [], ticktext: [] };
  const lo = Math.min(...positive);
  const hi = Math.max(...positive);
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo)) - 1; e <= Math.ceil(Math.log10(hi)) + 1; e++) {
    for (const m of [1, 2, 5]) ticks.push(m * 10 ** e);
  }
  // the ticks around the data: one step beyond each end so the extremes are framed
  const first = Math.max(0, ticks.findIndex((t) => t >= lo) - 1);
  const last = ticks.findIndex((t) => t >= hi);
  let chosen = ticks.slice(first, (last < 0 ? ticks.length - 1 : last) + 1);
  // many decades: the powers of ten only
  if (chosen.length > 10) chosen = chosen.filter((t) => Math.abs(Math.log10(t) - Math.round(Math.log10(t))) < 1e-9);
  const tickvals = chosen.map((t) => Number(t.toPrecision(1)));
  return { tickvals, ticktext: tickvals.map(fmt) };
}
