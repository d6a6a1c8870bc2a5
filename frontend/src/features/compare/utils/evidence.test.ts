import { describe, expect, it } from 'vitest';
import type { CompareRow } from '@/types/api';
import { evidenceText, verdictText } from './evidence';

describe('evidence wording', () => {
  it('states the A/B with its pairs, confidence and interval', () => {
    const text = evidenceText({ kind: 'ab', ratio: 0.95, ci_low: 0.94, ci_high: 0.961, pairs: 30, disturbed_pairs: 2 }, null, false);
    expect(text).toBe('A/B 30 pairs, 95 % CI: ×0.950 [0.940, 0.961]');
  });
  it('names counts and the reason for no verdict', () => {
    expect(evidenceText({ kind: 'counts', base_instructions_per_mb: 1, head_instructions_per_mb: 1.01, instructions_delta_pct: 1 }, null, false)).toBe('instruction counts +1.00 %');
    expect(evidenceText({ kind: 'none' }, null, false)).toBe('no verdict: measured at different times');
    expect(evidenceText({ kind: 'none' }, null, true)).toBe('no verdict: two machines');
    expect(evidenceText(null, null, false)).toBeNull();
  });
  it('never calls a row without evidence "no change"', () => {
    const row = { significant: false, regression: false, evidence: { kind: 'none' } } as CompareRow;
    expect(verdictText(row)).toBe('no verdict');
    expect(verdictText({ ...row, evidence: null })).toBe('no change');
    expect(verdictText({ ...row, significant: true, regression: true, evidence: null })).toBe('regression');
  });
});
