// Pure builders of the codec arena page: the "switch ROOT's X to Y" rows, the scatter of size
// change against speed ratio, the ZSTD / LZ4 level mapping around ROOT's setting, and one
// row's history over commits. Ratios are candidate speed / ROOT speed measured interleaved
// (> 1: the candidate is faster); sizes are exact, so a size change is never noise.
import type { Data } from 'plotly.js';
import type { ArenaHistoryPoint, ArenaResult, SpeedRatio } from '@/types/api';

export const FAMILIES = ['zlib', 'zstd', 'lz4', 'lzma'] as const;
export type Direction = 'compress' | 'decompress';

const ALGORITHM: Record<number, string> = { 1: 'ZLIB', 2: 'LZMA', 4: 'LZ4', 5: 'ZSTD' };

/** ROOT's setting as ROOT users name it: 505 -> "ZSTD-5 (505)". */
export function rootSetting(setting: number): string {
  return `${ALGORITHM[Math.floor(setting / 100)] ?? 'alg'}-${setting % 100} (${setting})`;
}

/** A candidate at its native level: "zstd-ctx 10", LZ4's HC levels marked as such. */
export function candidateLabel(r: Pick<ArenaResult, 'candidate' | 'family' | 'level'>): string {
  const hc = r.family === 'lz4' && r.level >= 3 ? ' (HC)' : '';
  return `${r.candidate} ${r.level}${hc}`;
}

/** "1.23 [1.20, 1.26]" or "—" when the ratio was not measured or no undisturbed pair is left. */
export function fmtRatio(r: SpeedRatio | null | undefined): string {
  if (!r || r.median === null || r.ci_low === null || r.ci_high === null) return '—';
  return `${r.median.toFixed(3)} [${r.ci_low.toFixed(3)}, ${r.ci_high.toFixed(3)}]`;
}

/** Whether the interval excludes 1: the candidate is measurably faster (1) or slower (-1). */
export function verdict(r: SpeedRatio | null | undefined): -1 | 0 | 1 {
  if (!r || r.ci_low === null || r.ci_high === null) return 0;
  if (r.ci_low > 1) return 1;
  if (r.ci_high < 1) return -1;
  return 0;
}

/** Instructions per MB of the candidate against ROOT's: < 1 is fewer instructions. */
export function instructionRatio(mine: number | null | undefined, root: number | null | undefined): number | null {
  if (mine === null || mine === undefined || root === null || root === undefined || root <= 0) return null;
  return mine / root;
}

/** The table's rows: one family (or all), ordered by ROOT setting, then candidate and level. */
export function switchRows(results: readonly ArenaResult[], family: string): ArenaResult[] {
  return results
    .filter((r) => !family || r.family === family)
    .slice()
    .sort(
      (a, b) =>
        a.reference_setting - b.reference_setting ||
        a.candidate.localeCompare(b.candidate) ||
        a.level - b.level,
    );
}

const median = (r: SpeedRatio | null | undefined): number | null => (r && r.median !== null ? r.median : null);

/** Size change (x) against the speed ratio (y), one trace per candidate so each reads as a
 * curve over its levels; results without a measured ratio or size are left out (counted). */
export function scatterTraces(results: readonly ArenaResult[], direction: Direction): { traces: Data[]; left_out: number } {
  const byCandidate = new Map<string, ArenaResult[]>();
  let leftOut = 0;
  for (const r of results) {
    const y = median(direction === 'compress' ? r.compress_ratio : r.decompress_ratio);
    if (y === null || r.size_change_pct === null) {
      leftOut++;
      continue;
    }
    byCandidate.set(r.candidate, [...(byCandidate.get(r.candidate) ?? []), r]);
  }
  const traces: Data[] = [...byCandidate.entries()].map(([candidate, rows]) => {
    const sorted = rows.slice().sort((a, b) => a.level - b.level);
    const ratio = (r: ArenaResult) => (direction === 'compress' ? r.compress_ratio : r.decompress_ratio);
    return {
      type: 'scatter' as const,
      mode: 'text+lines+markers' as const,
      name: candidate,
      x: sorted.map((r) => r.size_change_pct),
      y: sorted.map((r) => median(ratio(r))),
      text: sorted.map((r) => String(r.level)),
      textposition: 'top center' as const,
      error_y: {
        type: 'data' as const,
        symmetric: false,
        array: sorted.map((r) => (ratio(r)?.ci_high ?? 0) - (median(ratio(r)) ?? 0)),
        arrayminus: sorted.map((r) => (median(ratio(r)) ?? 0) - (ratio(r)?.ci_low ?? 0)),
        thickness: 1,
        width: 2,
      },
      customdata: sorted.map((r) => [rootSetting(r.reference_setting), r.root_readable ? 'yes' : 'no']),
      hovertemplate:
        `${candidate} %{text} vs %{customdata[0]}<br>size %{x:+.2f} %<br>${direction} speed x%{y:.3f}` +
        '<br>ROOT reads it: %{customdata[1]}<extra></extra>',
    };
  });
  return { traces, left_out: leftOut };
}

/** The level mapping of one family: size change and compression speed ratio per native
 * level, ROOT's own level (size change 0, ratio ~1) marked; levels ROOT's settings reach
 * labelled with that setting. */
export function mappingTraces(rows: readonly ArenaResult[]): Data[] {
  const sorted = rows.slice().sort((a, b) => a.level - b.level);
  if (!sorted.length) return [];
  const labels = sorted.map((r) => (r.root_setting ? `${r.level} = ${r.root_setting}` : String(r.level)));
  return [
    {
      type: 'scatter' as const,
      mode: 'lines+markers' as const,
      name: 'size change %',
      x: sorted.map((r) => r.level),
      y: sorted.map((r) => r.size_change_pct),
      text: labels,
      hovertemplate: 'level %{text}: size %{y:+.2f} %<extra></extra>',
    },
    {
      type: 'scatter' as const,
      mode: 'lines+markers' as const,
      name: 'compression speed ratio',
      yaxis: 'y2',
      x: sorted.map((r) => r.level),
      y: sorted.map((r) => median(r.compress_ratio)),
      text: labels,
      hovertemplate: 'level %{text}: compression x%{y:.3f}<extra></extra>',
    },
    {
      type: 'scatter' as const,
      mode: 'lines+markers' as const,
      name: 'decompression speed ratio',
      yaxis: 'y2',
      line: { dash: 'dot' as const },
      x: sorted.map((r) => r.level),
      y: sorted.map((r) => median(r.decompress_ratio)),
      text: labels,
      hovertemplate: 'level %{text}: decompression x%{y:.3f}<extra></extra>',
    },
  ];
}

/** The native level ROOT's reference setting runs (505 -> zstd 10): the mapping row whose
 * root_setting is the reference, if the document has it. */
export function referenceLevel(rows: readonly ArenaResult[]): number | null {
  const own = rows.find((r) => r.root_setting !== null && r.root_setting === r.reference_setting);
  return own ? own.level : null;
}

/** History over commits: size change and both speed ratios, x = commit (git order). */
export function historyTraces(points: readonly ArenaHistoryPoint[], shortSha: (s: string) => string): Data[] {
  const x = points.map((p) => shortSha(p.commit));
  return [
    {
      type: 'scatter' as const,
      mode: 'lines+markers' as const,
      name: 'size change %',
      x,
      y: points.map((p) => p.size_change_pct),
      hovertemplate: '%{x}: size %{y:+.2f} %<extra></extra>',
    },
    ...(['compress', 'decompress'] as const).map((d) => ({
      type: 'scatter' as const,
      mode: 'lines+markers' as const,
      name: `${d}ion speed ratio`,
      yaxis: 'y2',
      x,
      y: points.map((p) => median(d === 'compress' ? p.compress_ratio : p.decompress_ratio)),
      error_y: {
        type: 'data' as const,
        symmetric: false,
        array: points.map((p) => {
          const r = d === 'compress' ? p.compress_ratio : p.decompress_ratio;
          return (r?.ci_high ?? 0) - (median(r) ?? 0);
        }),
        arrayminus: points.map((p) => {
          const r = d === 'compress' ? p.compress_ratio : p.decompress_ratio;
          return (median(r) ?? 0) - (r?.ci_low ?? 0);
        }),
        thickness: 1,
        width: 2,
      },
      hovertemplate: `%{x}: ${d}ion x%{y:.3f}<extra></extra>`,
    })),
  ];
}
