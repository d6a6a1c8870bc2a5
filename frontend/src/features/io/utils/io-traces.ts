// Plot data of the end-to-end I/O page: per setting, a read (or write) split into the codec's
// time and the rest of I/O; and read MB/s against threads, one line per setting.
import type { Data } from 'plotly.js';
import type { IoSetting } from '@/types/api';

export type Direction = 'read' | 'write';

export interface Selection {
  form: string;
  cache: string;
  pageCache: string;
  threads: number;
}

export interface Split {
  setting: number;
  label: string;
  /** milliseconds per 10^6 uncompressed bytes (1000 / MB/s): comparable across settings */
  codecMs: number | null;
  restMs: number;
  share: number | null;
}

/** Per setting of the chosen form: end-to-end time per MB, split by the codec's share. */
export function splits(settings: readonly IoSetting[], sel: Selection, dir: Direction): Split[] {
  return settings
    .filter((s) => s.form === sel.form)
    .flatMap((s) => {
      const row =
        dir === 'read'
          ? s.reads.find((r) => r.threads === sel.threads && r.cache === sel.cache && r.page_cache === sel.pageCache)
          : s.writes.find((w) => w.threads === sel.threads);
      if (!row) return [];
      const speed = 'read_mbps' in row ? row.read_mbps : row.write_mbps;
      const total = 1000 / speed;
      const share = row.codec_share ?? null;
      // a share above 1 (the codec alone slower than the whole read: noise) is shown as all codec
      const codec = share === null ? null : total * Math.min(share, 1);
      return [{ setting: s.setting, label: s.label, codecMs: codec, restMs: total - (codec ?? 0), share }];
    });
}

export function splitTraces(rows: readonly Split[], dir: Direction): Data[] {
  const x = rows.map((r) => `${r.label} (${r.setting})`);
  const codecName = dir === 'read' ? 'decompression (codec alone)' : 'compression (codec alone)';
  return [
    {
      type: 'bar',
      name: codecName,
      x,
      y: rows.map((r) => r.codecMs ?? 0),
      text: rows.map((r) => (r.share === null ? 'no codec row' : `${(100 * r.share).toFixed(0)} %`)),
      textposition: 'inside',
      hovertemplate: `%{x}<br>${codecName}: %{y:.2f} ms per MB (%{text})<extra></extra>`,
    },
    {
      type: 'bar',
      // without a codec-only row (RNTuple pages: rzbench reads TTree baskets) the bar is the whole time
      name: rows.every((r) => r.share === null)
        ? `whole ${dir} (no codec-only measurement for this form)`
        : `rest of the ${dir} (ROOT I/O, deserialisation, scheduling)`,
      x,
      y: rows.map((r) => r.restMs),
      hovertemplate: '%{x}<br>rest: %{y:.2f} ms per MB<extra></extra>',
    },
  ];
}

/** Read MB/s against threads, one line per setting of the chosen form, cache and page cache. */
export function scalingTraces(settings: readonly IoSetting[], sel: Omit<Selection, 'threads'>): Data[] {
  return settings
    .filter((s) => s.form === sel.form)
    .map((s) => {
      const reads = s.reads
        .filter((r) => r.cache === sel.cache && r.page_cache === sel.pageCache)
        .sort((a, b) => a.threads - b.threads);
      return {
        type: 'scatter',
        mode: 'lines+markers',
        name: `${s.label} (${s.setting})`,
        x: reads.map((r) => r.threads),
        y: reads.map((r) => r.read_mbps),
        hovertemplate: `${s.label}: %{y:.1f} MB/s at %{x} thread(s)<extra></extra>`,
      } satisfies Data;
    });
}

/** The distinct values of one read attribute, for the pickers. */
export function choices(settings: readonly IoSetting[], key: 'cache' | 'page_cache' | 'threads'): string[] {
  const values = new Set<string>();
  for (const s of settings) for (const r of s.reads) values.add(String(r[key]));
  return [...values].sort();
}
