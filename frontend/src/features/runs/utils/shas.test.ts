import { describe, expect, it } from 'vitest';
import { parseShas } from './shas';

describe('parseShas', () => {
  it('splits on commas, spaces and newlines and drops empties', () => {
    expect(parseShas(' abc123, def456\n\n789abc  ,')).toEqual(['abc123', 'def456', '789abc']);
    expect(parseShas('   ')).toEqual([]);
  });
});
