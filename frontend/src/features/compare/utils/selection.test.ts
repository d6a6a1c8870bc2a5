import { describe, expect, it } from 'vitest';
import type { CompareRow } from '@/types/api';
import { selectionProblem, summarize, visibleRows } from './selection';

const row = (setting: number, regression: boolean, significant = regression): CompareRow =>
  ({ configuration: { setting }, regression, significant, dataset: 'd', metric: 'compress_mbps' }) as unknown as CompareRow;

describe('compare selection', () => {
  it('names the same commit on both sides instead of asking to choose', () => {
    const sha = 'a'.repeat(40);
    expect(selectionProblem({ kind: 'commits', base: sha, head: sha, commitCount: 1 })).toMatch(/Only one commit/);
    expect(selectionProblem({ kind: 'commits', base: sha, head: sha, commitCount: 8 })).toMatch(/same commit .*older base/);
    expect(selectionProblem({ kind: 'machines', base: 'm1', head: 'm1' })).toMatch(/same machine/);
    expect(selectionProblem({ kind: 'commits', base: '', head: sha })).toMatch(/Choose a base/);
    expect(selectionProblem({ kind: 'commits', base: 'b'.repeat(40), head: sha })).toBeNull();
  });

  it('counts regressions within the setting filter only', () => {
    const rows = [row(101, true), row(101, false), ...Array.from({ length: 8 }, () => row(505, true)), row(404, false, true)];
    expect(summarize(rows, '101')).toEqual({ regressions: 1, improvements: 0, compared: 2 });
    expect(summarize(rows, '')).toEqual({ regressions: 9, improvements: 1, compared: 11 });
    expect(visibleRows(rows, '404', true)).toHaveLength(1);
  });
});
