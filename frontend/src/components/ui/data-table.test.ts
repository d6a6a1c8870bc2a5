import { describe, expect, it } from 'vitest';
import { sortRows, type Column } from './data-table';

type R = { name: string; delta: number | null };
const col: Column<R> = { key: 'delta', header: 'Δ', value: (r) => r.delta, numeric: true };

describe('sortRows', () => {
  const rows: R[] = [{ name: 'a', delta: 3 }, { name: 'b', delta: null }, { name: 'c', delta: -7 }, { name: 'd', delta: 0 }];
  it('sorts numbers ascending and descending with nulls last', () => {
    expect(sortRows(rows, col, false).map((r) => r.name)).toEqual(['c', 'd', 'a', 'b']);
    expect(sortRows(rows, col, true).map((r) => r.name)).toEqual(['a', 'd', 'c', 'b']);
  });
});
