import { describe, expect, it } from 'vitest';
import type { CodecSeries, Commit } from '@/types/api';
import { defaultPair } from './defaults';

function series(set: string, latest: string[]): CodecSeries {
  return { id: 1, set, root_version: null, series_key: set, libraries: {}, commits: latest.length, first_libraries: {}, first_root_version: null, latest_commits: latest };
}

function commit(sha: string, order: number): Commit {
  return { id: order, repository: 'r/r', sha, parents: [], author: null, date: null, message: null, branch: null, order };
}

describe('compare defaults', () => {
  it('compares the two newest commits of the newest series that has two (the demo: the releases)', () => {
    const pair = defaultPair([series('host', ['checkout']), series('builtin', ['v6-40', 'v6-38'])], [commit('checkout', 2), commit('v6-40', 1)]);
    expect(pair).toMatchObject({ head: 'v6-40', base: 'v6-38' });
    expect(pair?.series?.set).toBe('builtin');
  });
  it('takes the newest series when it has two commits', () => {
    expect(defaultPair([series('host', ['c7', 'c6']), series('builtin', ['c3', 'c1'])], [])).toMatchObject({ head: 'c7', base: 'c6' });
  });
  it('falls back to the two newest commits, and to none', () => {
    expect(defaultPair([series('host', ['c1'])], [commit('a', 1), commit('b', 2)])).toEqual({ head: 'b', base: 'a' });
    expect(defaultPair([], [])).toBeNull();
  });
});
