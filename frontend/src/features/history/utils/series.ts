// A history series in the URL: "setting~dataset~machine~metric[~colour]" (one `s` per
// series). The colour slot is kept in the URL so a series keeps its colour when it is
// edited in place or when another series is added or removed.
export interface SeriesKey {
  setting: number;
  dataset: string;
  machine: string;
  metric: string;
  /** index into the palette; assigned on first use (assignColors) */
  color?: number;
}

export const METRICS = [
  'compress_mbps', 'decompress_mbps', 'ratio', 'compressed_bytes',
  'compress_instructions_per_mb', 'decompress_instructions_per_mb',
] as const;

export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2'];

export function encodeSeries(s: SeriesKey): string {
  const parts: (string | number)[] = [s.setting, s.dataset, s.machine, s.metric];
  if (s.color !== undefined) parts.push(s.color);
  return parts.join('~');
}

export function decodeSeries(raw: string): SeriesKey | null {
  const parts = raw.split('~');
  if (parts.length !== 4 && parts.length !== 5) return null;
  const [setting, dataset, machine, metric, color] = parts as [string, string, string, string, string | undefined];
  const n = Number(setting);
  if (!Number.isInteger(n) || !dataset || !machine || !(METRICS as readonly string[]).includes(metric)) return null;
  const key: SeriesKey = { setting: n, dataset, machine, metric };
  if (color !== undefined) {
    const c = Number(color);
    if (!Number.isInteger(c) || c < 0) return null;
    key.color = c;
  }
  return key;
}

/** Same series, whatever its colour. */
export function sameSeries(a: SeriesKey, b: SeriesKey): boolean {
  return a.setting === b.setting && a.dataset === b.dataset && a.machine === b.machine && a.metric === b.metric;
}

/** Every series with a colour slot: kept where given, else the lowest unused one. */
export function assignColors(keys: readonly SeriesKey[]): SeriesKey[] {
  const used = new Set(keys.flatMap((k) => (k.color === undefined ? [] : [k.color])));
  let next = 0;
  return keys.map((k) => {
    if (k.color !== undefined) return k;
    while (used.has(next)) next++;
    used.add(next);
    return { ...k, color: next };
  });
}

export function seriesColor(k: SeriesKey): string {
  return COLORS[(k.color ?? 0) % COLORS.length] ?? '#1f77b4';
}

/** Replace the series at `index` in place (its colour stays). */
export function replaceSeries(keys: readonly SeriesKey[], index: number, patch: Partial<SeriesKey>): SeriesKey[] {
  return keys.map((k, i) => (i === index ? { ...k, ...patch, color: k.color } : k));
}

/** Append a series with a fresh colour, unless the same series is plotted already. */
export function addSeries(keys: readonly SeriesKey[], key: SeriesKey): SeriesKey[] {
  if (keys.some((k) => sameSeries(k, key))) return [...keys];
  const { color: _c, ...bare } = key;
  return assignColors([...assignColors(keys), bare]);
}

/** Higher is better for speeds and ratio, lower is better for sizes. */
export function isRegression(metric: string, deltaPct: number): boolean {
  return metric === 'compressed_bytes' ? deltaPct > 0 : deltaPct < 0;
}
