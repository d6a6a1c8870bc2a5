// History lines per codec series: a series of the page (setting, dataset, machine, metric)
// is drawn once per codec series it was measured in, each its own line, never joined:
// a codec library change is not a change of ROOT.
import type { CodecSeries, History } from '@/types/api';

/** results stored before codec sets existed */
export const LEGACY = 'legacy';

export function codecKeyOf(h: History): string {
  return h.codecs?.series_key ?? LEGACY;
}

/** The other codec series each first answer lists (fetched in "every series" mode). */
export function otherSeries(first: readonly (History | undefined)[]): { index: number; codecs: string }[] {
  return first.flatMap((h, index) =>
    h ? (h.codec_series ?? []).filter((s) => s.series_key !== codecKeyOf(h)).map((s) => ({ index, codecs: s.series_key })) : [],
  );
}

const DASHES = ['solid', 'dash', 'dot', 'dashdot'] as const;
const SYMBOLS = ['circle', 'square', 'diamond', 'triangle-up'] as const;

export interface LineStyle {
  dash: (typeof DASHES)[number];
  symbol: (typeof SYMBOLS)[number];
}

/** The n-th codec series' line: solid circles, then dashed squares, dotted diamonds, ... */
export function lineStyle(n: number): LineStyle {
  const i = Math.max(0, n);
  return { dash: DASHES[i % DASHES.length] ?? 'solid', symbol: SYMBOLS[i % SYMBOLS.length] ?? 'circle' };
}

/** Words for the style legend: "solid", "dashed", ... */
export function dashWord(n: number): string {
  return { solid: 'solid', dash: 'dashed', dot: 'dotted', dashdot: 'dash-dotted' }[lineStyle(n).dash];
}

/** Every codec series of the answers, once, newest first by the first answer that lists it. */
export function seriesOrder(answers: readonly History[]): CodecSeries[] {
  const seen = new Map<string, CodecSeries>();
  for (const h of answers) for (const s of h.codec_series ?? []) if (!seen.has(s.series_key)) seen.set(s.series_key, s);
  return [...seen.values()];
}
