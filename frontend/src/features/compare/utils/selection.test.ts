import { describe, expect, it } from 'vitest';
import { selectionProblem } from './selection';

describe('compare selection', () => {
  it('names the same commit on both sides instead of asking to choose', () => {
    const sha = 'a'.repeat(40);
    expect(selectionProblem({ kind: 'commits', base: sha, head: sha, commitCount: 1 })).toMatch(/Only one commit/);
    expect(selectionProblem({ kind: 'commits', base: sha, head: sha, commitCount: 8 })).toMatch(/same commit .*older base/);
    expect(selectionProblem({ kind: 'machines', base: 'm1', head: 'm1' })).toMatch(/same machine/);
    expect(selectionProblem({ kind: 'commits', base: '', head: sha })).toMatch(/Choose a base/);
    expect(selectionProblem({ kind: 'commits', base: 'b'.repeat(40), head: sha })).toBeNull();
  });
});
