import type { Change, ChangeSummaryLine } from '@/types/api';

export interface ChangeGroup {
  key: string;
  commit: Change['commit'];
  repository: string;
  machine: Change['machine'];
  changes: Change[];
  regressions: number;
  improvements: number;
}

/** The inbox: one group per commit and machine, in the API's order (newest commit first). */
export function groupByCommit(changes: readonly Change[]): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const c of changes) {
    const key = `${c.commit.sha}@${c.machine.id}`;
    let g = groups.get(key);
    if (!g) {
      g = { key, commit: c.commit, repository: c.repository, machine: c.machine, changes: [], regressions: 0, improvements: 0 };
      groups.set(key, g);
    }
    g.changes.push(c);
    if (c.direction === 'regression') g.regressions++;
    else g.improvements++;
  }
  return [...groups.values()];
}

export function bisectionText(b: Record<string, unknown>): string | null {
  const status = typeof b.status === 'string' ? b.status : null;
  const steps = Array.isArray(b.steps) ? b.steps.length : 0;
  switch (status) {
    case null:
    case 'not_needed':
      return null;
    case 'listing':
    case 'waiting':
      return 'bisection: waiting for a worker to list the commits';
    case 'running': {
      const n = Array.isArray(b.candidates) ? b.candidates.length : 0;
      return `bisecting ${n} commits: ${steps} measured so far`;
    }
    case 'impossible':
      return `bisection cannot run: ${typeof b.reason === 'string' ? b.reason : 'no commits between these two'}`;
    case 'done':
      return `culprit isolated by bisection (${steps} commits measured; detected at ${String(b.detected_commit ?? '').slice(0, 10)})`;
    default:
      return `bisection ${status}${typeof b.reason === 'string' ? `: ${b.reason}` : ''}`;
  }
}

export interface CommitLines {
  key: string;
  commit: ChangeSummaryLine['commit'];
  machine: ChangeSummaryLine['machine'];
  lines: ChangeSummaryLine[];
  /** every change of the commit's lines (within the filter): a bulk action's ids */
  changeIds: number[];
  bisection: Record<string, unknown>;
}

/** Summary lines under their commit and machine, in the server's order (newest commit first). */
export function groupLines(lines: readonly ChangeSummaryLine[]): CommitLines[] {
  const groups = new Map<string, CommitLines>();
  for (const line of lines) {
    const key = `${line.commit.sha}@${line.machine.id}`;
    let g = groups.get(key);
    if (!g) {
      g = { key, commit: line.commit, machine: line.machine, lines: [], changeIds: [], bisection: {} };
      groups.set(key, g);
    }
    g.lines.push(line);
    g.changeIds.push(...line.change_ids);
    if (Object.keys(g.bisection).length === 0 && line.bisection) g.bisection = line.bisection;
  }
  return [...groups.values()];
}
