// Builds the Plotly traces of one trade-off panel (ratio vs one speed):
// one colour per algorithm, one marker symbol per machine, level as text,
// the Pareto frontier per machine, and a ghost baseline with arrows old -> new.
import type { Annotations, Data } from 'plotly.js';
import { algorithmName, settingLabel } from '@/lib/format';
import { plotText } from '@/lib/plot-text';
import type { CodecSet } from '@/types/api';
import { logTicks, placeLabels, toPixels, type LabelPosition } from './labels';
import { paretoFront } from './pareto';
import type { PlotPoint, SpeedAxis } from './relative';

export type SpeedKey = 'compress' | 'decompress';

export interface MachineSeries {
  machine: string;
  points: PlotPoint[];
  /** the codec series the points were measured in */
  codecs?: CodecSet | null;
}

const ALG_COLORS: Record<number, string> = {
  0: '#8c959f',
  1: '#1f77b4',
  2: '#9467bd',
  3: '#8c564b',
  4: '#ff7f0e',
  5: '#2ca02c',
};
const SYMBOLS = ['circle', 'square', 'diamond', 'triangle-up', 'cross', 'star'];

export const algColor = (alg: number): string => ALG_COLORS[alg] ?? '#d62728';

// customdata of a point: [label, machine, setting, CURRENT | BASELINE, series index]
const CURRENT = 0;
const BASELINE = 1;

export interface ClickedPoint {
  baseline: boolean;
  /** index into the current (or baseline) series */
  series: number;
  setting: number;
}

/** Which point a Plotly click hit, from its customdata; null for lines and unknown data. */
export function clickedPoint(customdata: unknown): ClickedPoint | null {
  if (!Array.isArray(customdata) || customdata.length < 5) return null;
  const [, , setting, kind, series] = customdata as unknown[];
  if (typeof setting !== 'number' || typeof series !== 'number' || (kind !== CURRENT && kind !== BASELINE)) return null;
  return { baseline: kind === BASELINE, series, setting };
}

function speedOf(p: PlotPoint, key: SpeedKey): number | null {
  return key === 'compress' ? p.compress : p.decompress;
}

function errorBars(points: PlotPoint[], key: SpeedKey) {
  const lo = points.map((p) => {
    const v = speedOf(p, key);
    const min = key === 'compress' ? p.compressMin : p.decompressMin;
    return v !== null && min !== null ? Math.max(0, v - min) : 0;
  });
  const hi = points.map((p) => {
    const v = speedOf(p, key);
    const max = key === 'compress' ? p.compressMax : p.decompressMax;
    return v !== null && max !== null ? Math.max(0, max - v) : 0;
  });
  return { type: 'data' as const, symmetric: false, array: hi, arrayminus: lo, thickness: 1, width: 0 };
}

export function plottable(points: readonly PlotPoint[], key: SpeedKey): PlotPoint[] {
  return points.filter((p) => {
    const v = speedOf(p, key);
    return v !== null && v > 0 && Number.isFinite(p.ratio);
  });
}

// Plot area assumed when placing labels: smaller than any real panel (>= 560 px wide), so
// real distances between points are larger and placed labels stay apart.
const AREA = { width: 460, height: 340 };

/** Where each current point's label goes ("ZLIB-4"), keyed by machine and setting. */
function labelPositions(current: MachineSeries[], key: SpeedKey): Map<string, LabelPosition | null> {
  const pts = current.flatMap((s) => plottable(s.points, key).map((p) => ({ s, p })));
  const xs = pts.map(({ p }) => p.ratio);
  const ys = pts.map(({ p }) => Math.log10(speedOf(p, key) ?? 1));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  const padX = (x1 - x0) * 0.05 || 0.5;
  const padY = (y1 - y0) * 0.05 || 0.5;
  const placed = placeLabels(
    pts.map(({ s, p }, i) => ({
      px: toPixels(xs[i] ?? 0, x0 - padX, x1 + padX, AREA.width),
      py: toPixels(ys[i] ?? 0, y0 - padY, y1 + padY, AREA.height, true),
      text: pointText(p.setting, s.machine, current.length > 1),
    })),
    AREA.width,
    AREA.height,
  );
  return new Map(pts.map(({ s, p }, i) => [`${s.machine}|${p.setting}`, placed[i] ?? null]));
}

/** A point's label: its setting, and with several machines on the plot, whose it is. */
export function pointText(setting: number, machine: string, manyMachines: boolean): string {
  return manyMachines ? `${settingLabel(setting)} · ${machine}` : settingLabel(setting);
}

export function buildTraces(
  current: MachineSeries[],
  baseline: MachineSeries[],
  key: SpeedKey,
  relative: boolean,
  axis: SpeedAxis = 'mbps',
): { data: Data[]; annotations: Partial<Annotations>[]; count: number; yTicks: { tickvals: number[]; ticktext: string[] } } {
  const data: Data[] = [];
  const annotations: Partial<Annotations>[] = [];
  const unit = relative ? '×' : axis === 'instructions' ? 'instructions/MB' : 'MB/s';
  // fewer instructions per MB is better: the frontier takes the lowest counts
  const better = axis === 'instructions' ? (p: PlotPoint) => -(speedOf(p, key) ?? Number.NaN) : (p: PlotPoint) => speedOf(p, key);
  let count = 0;
  const labels = labelPositions(current, key);
  const ys: number[] = [];

  current.forEach((series, mi) => {
    const pts = plottable(series.points, key);
    const algs = [...new Set(pts.map((p) => p.algorithm))].sort((a, b) => a - b);
    for (const alg of algs) {
      const group = pts.filter((p) => p.algorithm === alg).sort((a, b) => a.level - b.level);
      count += group.length;
      for (const p of group) {
        const v = speedOf(p, key);
        const lo = key === 'compress' ? p.compressMin : p.decompressMin;
        const hi = key === 'compress' ? p.compressMax : p.decompressMax;
        for (const y of [v, lo, hi]) if (y !== null && y > 0) ys.push(y);
      }
      const where = group.map((p) => labels.get(`${series.machine}|${p.setting}`) ?? null);
      data.push({
        type: 'scatter',
        mode: 'text+markers',
        name: current.length > 1 ? `${algorithmName(alg)} · ${plotText(series.machine)}` : algorithmName(alg),
        legendgroup: `alg${alg}`,
        x: group.map((p) => p.ratio),
        y: group.map((p) => speedOf(p, key)),
        // full setting names, placed apart; a point with no free spot is named on hover only
        text: group.map((p, i) => (where[i] ? plotText(pointText(p.setting, series.machine, current.length > 1)) : '')),
        textposition: where.map((w) => w ?? 'top center') as unknown as 'top center',
        textfont: { size: 10, color: algColor(alg) },
        marker: { color: algColor(alg), size: 9, symbol: SYMBOLS[mi % SYMBOLS.length] },
        error_y: errorBars(group, key),
        customdata: group.map((p) => [settingLabel(p.setting), plotText(series.machine), p.setting, CURRENT, mi]),
        hovertemplate:
          `<b>%{customdata[0]}</b> (%{customdata[2]}) on %{customdata[1]}<br>` +
          `ratio %{x:.3f}<br>${key} median %{y:.4g} ${unit}<br><i>click: the commit, linked</i><extra></extra>`,
      });
    }
    const front = paretoFront(pts, (p) => p.ratio, better);
    if (front.length > 1) {
      data.push({
        type: 'scatter',
        mode: 'lines',
        name: current.length > 1 ? `Pareto frontier · ${plotText(series.machine)}` : 'Pareto frontier',
        x: front.map((p) => p.ratio),
        y: front.map((p) => speedOf(p, key)),
        line: { color: '#6e7781', dash: 'dot', width: 1.5, shape: 'linear' },
        hoverinfo: 'skip',
      });
    }
  });

  // Ghost baseline: same colours, faded, then an arrow from each old point to its new position.
  baseline.forEach((series, bi) => {
    const pts = plottable(series.points, key);
    if (pts.length === 0) return;
    data.push({
      type: 'scatter',
      mode: 'markers',
      name: `baseline · ${plotText(series.machine)}`,
      x: pts.map((p) => p.ratio),
      y: pts.map((p) => speedOf(p, key)),
      opacity: 0.35,
      marker: { color: pts.map((p) => algColor(p.algorithm)), size: 8, symbol: 'circle-open', line: { width: 2 } },
      customdata: pts.map((p) => [settingLabel(p.setting), plotText(series.machine), p.setting, BASELINE, bi]),
      hovertemplate: `baseline <b>%{customdata[0]}</b> on %{customdata[1]}<br>ratio %{x:.3f}<br>${key} %{y:.4g} ${unit}<extra></extra>`,
    });
    const target = current[Math.min(bi, current.length - 1)];
    if (!target) return;
    const now = new Map(plottable(target.points, key).map((p) => [p.setting, p]));
    for (const old of pts) {
      const cur = now.get(old.setting);
      const oy = speedOf(old, key);
      const ny = cur ? speedOf(cur, key) : null;
      if (!cur || oy === null || ny === null) continue;
      if (cur.ratio === old.ratio && ny === oy) continue;
      // Annotation coordinates on log axes are log10 of the value.
      annotations.push({
        x: cur.ratio,
        y: Math.log10(ny),
        ax: old.ratio,
        ay: Math.log10(oy),
        xref: 'x',
        yref: 'y',
        axref: 'x',
        ayref: 'y',
        showarrow: true,
        arrowhead: 2,
        arrowsize: 1,
        arrowwidth: 1.2,
        arrowcolor: algColor(cur.algorithm),
        opacity: 0.7,
        text: '',
      });
    }
  });

  const yTicks = ys.length ? logTicks(Math.min(...ys), Math.max(...ys)) : { tickvals: [], ticktext: [] };
  return { data, annotations, count, yTicks };
}
