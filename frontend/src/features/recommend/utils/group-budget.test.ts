import { describe, expect, it } from 'vitest';
import type { GroupSizes } from '@/types/api';
import { GROUP_WEIGHT, MAX_GROUP_WORK, withinBudget } from './group-budget';

const group = (key: string, raw: number, nSizes: number): GroupSizes => ({
  key,
  raw_bytes: raw,
  share: 0,
  type_class: 'float',
  sizes: Array.from({ length: nSizes }, (_, i) => ({ setting: 101 + i, preconditioner: 'none', compressed_bytes: raw / 2 })),
});

describe('withinBudget', () => {
  it('sends every group when they fit', () => {
    const groups = [group('a', 10, 3), group('b', 20, 3)];
    expect(withinBudget(groups)).toEqual({ ranked: groups, leftOut: 0, leftOutShare: 0 });
  });

  it('keeps the largest groups of a file too big for one request and states the rest', () => {
    // PHYSLITE-like: 2 019 branches of 12 sizes = 2 019 x 20 = 40 380 units of work
    const groups = Array.from({ length: 2019 }, (_, i) => group(`b${i}`, i + 1, 12));
    const b = withinBudget(groups);
    const work = b.ranked.reduce((s, g) => s + g.sizes.length + GROUP_WEIGHT, 0);
    expect(work).toBeLessThanOrEqual(MAX_GROUP_WORK);
    expect(b.ranked).toHaveLength(Math.floor(MAX_GROUP_WORK / 20));
    expect(b.ranked[0]?.key).toBe('b2018'); // largest first
    expect(b.leftOut).toBe(2019 - b.ranked.length);
    const total = (2019 * 2020) / 2;
    const left = ((2019 - b.ranked.length) * (2019 - b.ranked.length + 1)) / 2; // the smallest ones
    expect(b.leftOutShare).toBeCloseTo(left / total, 12);
  });
});
