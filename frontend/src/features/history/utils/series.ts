// A history series in the URL: "setting~dataset~machine~metric" (one `s` per series).
export interface SeriesKey {
  setting: number;
  dataset: string;
  machine: string;
  metric: string;
}

export const METRICS = ['compress_mbps', 'decompress_mbps', 'ratio', 'compressed_bytes'] as const;

export function encodeSeries(s: SeriesKey): string {
  return [s.setting, s.dataset, s.machine, s.metric].join('~');
}

export function decodeSeries(raw: string): SeriesKey | null {
  const parts = raw.split('~');
  if (parts.length !== 4) return null;
  const [setting, dataset, machine, metric] = parts as [string, string, string, string];
  const n = Number(setting);
  if (!Number.isInteger(n) || !dataset || !machine || !(METRICS as readonly string[]).includes(metric)) return null;
  return { setting: n, dataset, machine, metric };
}

/** Higher is better for speeds and ratio, lower is better for sizes. */
export function isRegression(metric: string, deltaPct: number): boolean {
  return metric === 'compressed_bytes' ? deltaPct > 0 : deltaPct < 0;
}
