export interface Selection {
  kind: string;
  base: string;
  head: string;
  /** commits known to the server (the newest first page's total) */
  commitCount?: number;
}

/** Why this selection cannot be compared, in words a user can act on; null when it can. */
export function selectionProblem({ kind, base, head, commitCount }: Selection): string | null {
  if (kind === 'commits' && commitCount !== undefined && commitCount < 2) {
    return 'Only one commit has been measured so far: compare two machines instead, or measure another commit.';
  }
  if (!base || !head) return kind === 'machines' ? 'Choose a base and a head machine to compare.' : 'Choose a base and a head commit to compare.';
  if (kind === 'machines') {
    return base === head ? `Base and head are the same machine (${base}): choose another one for one of them.` : null;
  }
  if (base === head) {
    return `Base and head are the same commit (${base.slice(0, 10)}): choose an older base.`;
  }
  return null;
}
