import { describe, expect, it } from 'vitest';
import type { ArenaHistoryPoint, ArenaResult, SpeedRatio } from '@/types/api';
import {
  candidateLabel,
  fmtRatio,
  historyTraces,
  instructionRatio,
  mappingTraces,
  referenceLevel,
  rootSetting,
  scatterTraces,
  switchRows,
  verdict,
} from './arena-rows';

const ratio = (median: number, low = median * 0.98, high = median * 1.02): SpeedRatio => ({ median, ci_low: low, ci_high: high, pairs: 11, disturbed_pairs: 0 });

const row = (candidate: string, family: string, level: number, reference: number, change: number | null, c: SpeedRatio | null, extra: Partial<ArenaResult> = {}): ArenaResult => ({
  candidate,
  family,
  level,
  shape: null,
  reference_setting: reference,
  root_setting: null,
  compressed_bytes: change === null ? null : 1000 + change * 10,
  reference_bytes: change === null ? null : 1000,
  size_change_pct: change,
  identical_to_reference: null,
  roundtrip_ok: true,
  root_readable: true,
  error: null,
  compress_ratio: c,
  decompress_ratio: null,
  compress_instructions: null,
  decompress_instructions: null,
  reference_compress_instructions: null,
  reference_decompress_instructions: null,
  ...extra,
});

const results = [
  row('zstd', 'zstd', 3, 505, 6.1, ratio(2.8)),
  row('zlib-ng', 'zlib', 6, 106, 0.4, ratio(2.1)),
  row('zlib-ng', 'zlib', 1, 101, 0.9, ratio(1.6)),
  row('libdeflate', 'zlib', 1, 101, -1.2, ratio(1.1, 0.95, 1.3)),
  row('zstd', 'zstd', 19, 505, -4.0, null, { roundtrip_ok: true }),
];

describe('arena rows', () => {
  it('names ROOT settings and candidate levels as users read them', () => {
    expect(rootSetting(505)).toBe('ZSTD-5 (505)');
    expect(rootSetting(101)).toBe('ZLIB-1 (101)');
    expect(candidateLabel({ candidate: 'lz4', family: 'lz4', level: 9 })).toBe('lz4 9 (HC)');
    expect(candidateLabel({ candidate: 'lz4', family: 'lz4', level: 1 })).toBe('lz4 1');
  });

  it('orders the switch table by ROOT setting, candidate and level, one family when asked', () => {
    expect(switchRows(results, '').map((r) => `${r.reference_setting} ${r.candidate} ${r.level}`)).toEqual([
      '101 libdeflate 1',
      '101 zlib-ng 1',
      '106 zlib-ng 6',
      '505 zstd 3',
      '505 zstd 19',
    ]);
    expect(switchRows(results, 'zstd').map((r) => r.level)).toEqual([3, 19]);
  });

  it('calls a speed difference only when the interval excludes 1', () => {
    expect(verdict(ratio(1.6))).toBe(1);
    expect(verdict(ratio(0.5))).toBe(-1);
    expect(verdict(ratio(1.1, 0.95, 1.3))).toBe(0);
    expect(verdict(null)).toBe(0);
    expect(fmtRatio(ratio(1.25, 1.2, 1.3))).toBe('1.250 [1.200, 1.300]');
    expect(fmtRatio({ median: null, ci_low: null, ci_high: null, pairs: 0, disturbed_pairs: 5 })).toBe('—');
  });

  it('compares instruction counts only when both sides were counted', () => {
    expect(instructionRatio(5e6, 2e7)).toBe(0.25);
    expect(instructionRatio(null, 2e7)).toBeNull();
    expect(instructionRatio(5e6, 0)).toBeNull();
  });

  it('draws one scatter trace per candidate over its levels and counts what has no ratio', () => {
    const { traces, left_out } = scatterTraces(results, 'compress');
    expect(left_out).toBe(1); // zstd 19 has no measured compression ratio
    expect(traces.map((t) => t.name)).toEqual(['zstd', 'zlib-ng', 'libdeflate']);
    const ng = traces[1] as { x: number[]; y: number[]; error_y: { array: number[]; arrayminus: number[] } };
    expect(ng.x).toEqual([0.9, 0.4]); // levels 1 then 6
    expect(ng.y).toEqual([1.6, 2.1]);
    expect(ng.error_y.array[0]).toBeCloseTo(0.032);
    expect(ng.error_y.arrayminus[0]).toBeCloseTo(0.032);
  });

  it('lays out the level mapping and finds the level ROOT runs (505 = zstd 10)', () => {
    const mapping = [3, 10, 19].map((l) => row('zstd', 'zstd', l, 505, (10 - l) * 0.8, ratio(2 ** ((10 - l) / 4)), { root_setting: l === 10 ? 505 : null }));
    expect(referenceLevel(mapping)).toBe(10);
    expect(referenceLevel(mapping.filter((r) => r.level !== 10))).toBeNull();
    const [size, speed] = mappingTraces(mapping.slice().reverse()) as { x: number[]; y: (number | null)[]; text: string[] }[];
    expect(size!.x).toEqual([3, 10, 19]);
    expect(size!.y[1]).toBe(0);
    expect(speed!.y[1]).toBe(1);
    expect(size!.text).toEqual(['3', '10 = 505', '19']);
    expect(mappingTraces([])).toEqual([]);
  });

  it('draws a history as size change and both speed ratios over commits', () => {
    const point = (commit: string, change: number, c: number): ArenaHistoryPoint => ({
      commit,
      committed_at: null,
      arena_run_id: 1,
      created_at: '2026-11-27T10:00:00Z',
      compressed_bytes: 1000,
      reference_bytes: 1000,
      size_change_pct: change,
      roundtrip_ok: true,
      error: null,
      compress_ratio: ratio(c),
      decompress_ratio: null,
      compress_instructions: null,
      reference_compress_instructions: null,
      decompress_instructions: null,
      reference_decompress_instructions: null,
    });
    const traces = historyTraces([point('a'.repeat(40), 0.4, 1.6), point('b'.repeat(40), 0.5, 1.2)], (s) => s.slice(0, 4)) as { name: string; x: string[]; y: (number | null)[] }[];
    expect(traces.map((t) => t.name)).toEqual(['size change %', 'compression speed ratio', 'decompression speed ratio']);
    expect(traces[0]!.x).toEqual(['aaaa', 'bbbb']);
    expect(traces[1]!.y).toEqual([1.6, 1.2]);
    expect(traces[2]!.y).toEqual([null, null]);
  });
});
