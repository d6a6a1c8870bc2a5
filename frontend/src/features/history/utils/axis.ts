// History's x axis: positions stay git orders (zoom and linked plots work on numbers);
// the ticks read as short shas or commit dates, and releases and the newest commit are named.
import { shortSha } from '@/lib/format';

export type AxisLabels = 'date' | 'sha';

export interface AxisPoint {
  order: number;
  sha: string;
  date: string | null;
  message: string | null;
  value: number;
}

/** "ROOT 6.40.00" from a release commit's message "ROOT 6.40.00 (release)"; else null. */
export function releaseName(message: string | null): string | null {
  const m = /^ROOT (\d+\.\d+\.\d+) \((release|development build)\)/.exec(message ?? '');
  return m ? `ROOT ${m[1]}` : null;
}

function tickText(p: AxisPoint, labels: AxisLabels): string {
  if (labels === 'sha' || !p.date) return shortSha(p.sha).slice(0, 7);
  return p.date.slice(0, 10);
}

/** At most `max` ticks, evenly over the commits shown (one per commit when they are few). */
export function axisTicks(points: readonly AxisPoint[], labels: AxisLabels, max = 8): { tickvals: number[]; ticktext: string[] } {
  const byOrder = new Map<number, AxisPoint>();
  for (const p of points) if (!byOrder.has(p.order)) byOrder.set(p.order, p);
  const sorted = [...byOrder.values()].sort((a, b) => a.order - b.order);
  const step = Math.max(1, Math.ceil(sorted.length / max));
  const picked = sorted.filter((_, i) => i % step === 0);
  return { tickvals: picked.map((p) => p.order), ticktext: picked.map((p) => tickText(p, labels)) };
}

export interface PointLabel {
  order: number;
  value: number;
  text: string;
  kind: 'release' | 'newest';
}

/** Labels for the plot: every release (by its commit message) and the newest commit. */
export function pointLabels(points: readonly AxisPoint[]): PointLabel[] {
  const out: PointLabel[] = [];
  const seen = new Set<number>();
  for (const p of points) {
    const name = releaseName(p.message);
    if (name && !seen.has(p.order)) {
      seen.add(p.order);
      out.push({ order: p.order, value: p.value, text: name, kind: 'release' });
    }
  }
  const newest = points.reduce<AxisPoint | null>((a, p) => (a === null || p.order > a.order ? p : a), null);
  if (newest && !seen.has(newest.order)) {
    out.push({ order: newest.order, value: newest.value, text: `newest ${shortSha(newest.sha).slice(0, 7)}`, kind: 'newest' });
  }
  return out;
}
