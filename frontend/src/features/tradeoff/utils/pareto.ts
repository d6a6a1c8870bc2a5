// Pareto set of (ratio, speed) points where both are "more is better": a point
// is on the frontier when no other point is at least as good in both and
// strictly better in one. O(n^2) is fine: a trade-off plot has < 100 points.

export type Accessor<T> = (p: T) => number | null | undefined;

function valid(v: number | null | undefined): v is number {
  return v !== null && v !== undefined && Number.isFinite(v);
}

export function paretoFront<T>(points: readonly T[], x: Accessor<T>, y: Accessor<T>): T[] {
  const candidates = points.filter((p) => valid(x(p)) && valid(y(p)));
  const front = candidates.filter((p) => {
    const px = x(p) as number;
    const py = y(p) as number;
    return !candidates.some((q) => {
      if (q === p) return false;
      const qx = x(q) as number;
      const qy = y(q) as number;
      return qx >= px && qy >= py && (qx > px || qy > py);
    });
  });
  // Sorted by x so the frontier can be drawn as a line.
  return front.sort((a, b) => (x(a) as number) - (x(b) as number));
}
