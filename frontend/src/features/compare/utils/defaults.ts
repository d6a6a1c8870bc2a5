import type { CodecSeries, Commit } from '@/types/api';

export interface Pair {
  base: string;
  head: string;
  /** the codec series both were measured in, when chosen by series */
  series?: CodecSeries;
}

/**
 * Compare's default pair: the two newest commits of the newest codec series that has two
 * (series never mix: after `make demo` the checkout is alone in the host series, so the
 * two ROOT releases of the builtin series are compared), else the two newest commits.
 */
export function defaultPair(series: readonly CodecSeries[], newest: readonly Commit[]): Pair | null {
  const within = series.find((s) => (s.latest_commits ?? []).length >= 2);
  if (within) {
    const [head, base] = within.latest_commits ?? [];
    if (head && base) return { head, base, series: within };
  }
  const sorted = [...newest].sort((a, b) => (b.order ?? 0) - (a.order ?? 0));
  return sorted[0] ? { head: sorted[0].sha, base: sorted[1]?.sha ?? '' } : null;
}
