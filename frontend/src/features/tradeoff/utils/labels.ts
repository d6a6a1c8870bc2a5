// Readable trade-off plots: point labels placed where they do not collide, and log-axis
// ticks that always carry their decade.

/** Plotly's textposition values this placer chooses from, in order of preference. */
const POSITIONS = ['top center', 'bottom center', 'middle right', 'middle left', 'top right', 'top left', 'bottom right', 'bottom left'] as const;
export type LabelPosition = (typeof POSITIONS)[number];

export interface LabelInput {
  /** position in plot pixels (x right, y down) */
  px: number;
  py: number;
  text: string;
}

const CHAR_W = 6.5; // px per character at the 10 px label font (a little generous)
const TEXT_H = 12;
const GAP = 5; // marker radius + padding

interface Box {
  l: number;
  r: number;
  t: number;
  b: number;
}

function boxAt(p: LabelInput, pos: LabelPosition): Box {
  const w = p.text.length * CHAR_W;
  const [v, h] = pos.split(' ') as [string, string];
  const cx = h === 'right' ? p.px + GAP + w / 2 : h === 'left' ? p.px - GAP - w / 2 : p.px;
  const cy = v === 'top' ? p.py - GAP - TEXT_H / 2 : v === 'bottom' ? p.py + GAP + TEXT_H / 2 : p.py;
  return { l: cx - w / 2, r: cx + w / 2, t: cy - TEXT_H / 2, b: cy + TEXT_H / 2 };
}

const overlaps = (a: Box, b: Box) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;

/**
 * A position for each label such that no two labels overlap and no label covers a marker;
 * null where every position collides (that point is labelled by its hover text only).
 */
export function placeLabels(points: readonly LabelInput[], width: number, height: number): (LabelPosition | null)[] {
  const markers: Box[] = points.map((p) => ({ l: p.px - 4, r: p.px + 4, t: p.py - 4, b: p.py + 4 }));
  const placed: Box[] = [];
  return points.map((p, i) => {
    for (const pos of POSITIONS) {
      const box = boxAt(p, pos);
      if (box.l < 0 || box.r > width || box.t < 0 || box.b > height) continue;
      if (placed.some((b) => overlaps(b, box))) continue;
      if (markers.some((m, j) => j !== i && overlaps(m, box))) continue;
      placed.push(box);
      return pos;
    }
    return null;
  });
}

/** Linear position of `v` in [lo, hi] on `size` pixels (log axes: pass log10 values). */
export function toPixels(v: number, lo: number, hi: number, size: number, flip = false): number {
  const f = hi === lo ? 0.5 : (v - lo) / (hi - lo);
  return (flip ? 1 - f : f) * size;
}

/** 1-2-5 ticks over [min, max] with their full value (Plotly's own log ticks print "2" for 2000). */
export function logTicks(min: number, max: number): { tickvals: number[]; ticktext: string[] } {
  const tickvals: number[] = [];
  if (!(min > 0) || !(max > 0)) return { tickvals, ticktext: [] };
  const lo = Math.floor(Math.log10(Math.min(min, max)));
  const hi = Math.ceil(Math.log10(Math.max(min, max)));
  const steps = hi - lo > 3 ? [1] : [1, 2, 5];
  for (let e = lo; e <= hi; e++) {
    for (const m of steps) {
      const v = m * 10 ** e;
      if (v >= min / 1.5 && v <= max * 1.5) tickvals.push(Number(v.toPrecision(3)));
    }
  }
  return { tickvals, ticktext: tickvals.map(formatTick) };
}

export function formatTick(v: number): string {
  if (v >= 1e6) return `${v / 1e6}M`;
  if (v >= 1e4) return `${v / 1e3}k`;
  return String(v);
}
