import { describe, expect, it } from 'vitest';
import type { LossyPoint } from '@/types/api';
import { ERROR_FLOOR, columnPoints, frontier, label, tradeoffTraces } from './lossy-traces';

const p = (representation: string, bits: number, bytes: number, error: number, column = 'Muon_Px'): LossyPoint => ({
  column,
  representation,
  bits,
  compressed_bytes: bytes,
  uncompressed_bytes: 1000,
  saved_pct: 0,
  max_abs_error: error,
  max_rel_error: error,
  rms_rel_error: error / 2,
});

const points = [p('full', 32, 1000, 0), p('half', 16, 520, 4.8e-4), p('trunc', 20, 640, 4.8e-4), p('trunc', 12, 300, 0.11), p('quant', 16, 530, 0.7), p('full', 32, 90, 0, 'Muon_E')];

describe('lossy traces', () => {
  it('labels fixed-width representations by name and the others with their bits', () => {
    expect(points.map(label)).toEqual(['full', 'half', 'trunc20', 'trunc12', 'quant16', 'full']);
  });

  it('keeps one column, ordered by kind then bits', () => {
    expect(columnPoints(points, 'Muon_Px').map(label)).toEqual(['full', 'half', 'quant16', 'trunc12', 'trunc20']);
  });

  it('draws one trace per kind, exact values at the floor of the log axis', () => {
    const traces = tradeoffTraces(columnPoints(points, 'Muon_Px'));
    expect(traces.map((t) => t.name)).toEqual(['full', 'half', 'trunc', 'quant']);
    const full = traces[0] as { x: number[]; y: number[] };
    expect(full.x).toEqual([ERROR_FLOOR]);
    const trunc = traces[2] as { x: number[]; text: string[] };
    expect(trunc.text).toEqual(['trunc12', 'trunc20']);
  });

  it('finds the representations no other beats on both bytes and error', () => {
    const best = frontier(columnPoints(points, 'Muon_Px')).map(label).sort();
    // trunc20 has half's error with more bytes; quant16 is larger and less precise than half
    expect(best).toEqual(['full', 'half', 'trunc12']);
  });
});
