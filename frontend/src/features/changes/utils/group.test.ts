import { describe, expect, it } from 'vitest';
import type { Change, ChangeSummaryLine } from '@/types/api';
import { bisectionText, groupByCommit, groupLines } from './group';

function change(id: number, sha: string, machineId: number, direction: 'regression' | 'improvement'): Change {
  return {
    id,
    repository: 'root-project/root',
    commit: { sha, url: `https://github.com/root-project/root/commit/${sha}`, message: 'm', author: 'a', date: null, order: 1 },
    parent: null,
    machine: { id: machineId, name: 'bench-01', tag: 'haswell', version: 2 },
    dataset: 'hzz',
    configuration: {
      id: 1, setting: 505, algorithm: 5, codec: 'zstd', level: 5, preconditioner: 'shuffle',
      dictionary_size: 0, basket_size: 0, mode: 'basket', threads: 1, label: 'ZSTD-5 +shuffle',
    },
    metric: 'decompress_mbps', kind: 'speed', test: 'single', direction,
    base_value: 1, head_value: 0.9, delta_pct: -10, ci_low_pct: -11, ci_high_pct: -9, p_value: 1e-6,
    q_value: 1e-5, min_effect_pct: 2, state: 'confirmed', status: 'open', status_by: null,
    status_reason: null, status_at: null, bisection: {}, created_at: '2026-11-23T00:00:00Z',
    confirmed_at: null, notified_at: null,
  };
}

describe('groupByCommit', () => {
  it('keeps the API order and groups by commit and machine', () => {
    const groups = groupByCommit([
      change(1, 'b'.repeat(40), 1, 'regression'),
      change(2, 'b'.repeat(40), 1, 'improvement'),
      change(3, 'b'.repeat(40), 2, 'regression'),
      change(4, 'a'.repeat(40), 1, 'regression'),
    ]);
    expect(groups.map((g) => [g.commit.sha[0], g.machine.id, g.changes.length])).toEqual([
      ['b', 1, 2],
      ['b', 2, 1],
      ['a', 1, 1],
    ]);
    expect(groups[0]?.regressions).toBe(1);
    expect(groups[0]?.improvements).toBe(1);
  });
});

describe('bisectionText', () => {
  it('says what the bisection is doing', () => {
    expect(bisectionText({})).toBeNull();
    expect(bisectionText({ status: 'running', candidates: [1, 2, 3], steps: [{}] })).toBe('bisecting 3 commits: 1 measured so far');
    expect(bisectionText({ status: 'done', steps: [{}, {}], detected_commit: 'abcdef123456789' })).toContain('detected at abcdef1234');
  });
});

describe('summary lines', () => {
  const line = (sha: string, machine: number, ids: number[]): ChangeSummaryLine => ({
    line: `ZLIB compression speed, ${ids.length} series`,
    commit: { sha, url: '', message: null, author: null, date: null, order: 1 },
    machine: { id: machine, name: `m${machine}`, tag: 't', version: 1 },
    codec: 'zlib', metric: 'compress_mbps', direction: 'regression', changes: ids.length, datasets: ['d'],
    min_delta_pct: -74, max_delta_pct: -47, statuses: { open: ids.length }, change_ids: ids,
    bisection: sha === 'b' ? { status: 'impossible' } : {},
  });

  it('puts the lines of one commit and machine together, with all their change ids', () => {
    const groups = groupLines([line('a', 1, [1, 2]), line('a', 1, [3]), line('a', 2, [4]), line('b', 1, [5])]);
    expect(groups.map((g) => g.key)).toEqual(['a@1', 'a@2', 'b@1']);
    expect(groups[0]?.changeIds).toEqual([1, 2, 3]);
    expect(groups[0]?.lines).toHaveLength(2);
    expect(groups[2]?.bisection).toEqual({ status: 'impossible' });
  });
});
