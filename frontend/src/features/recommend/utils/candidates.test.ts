import { describe, expect, it } from 'vitest';
import { fromTradeoff, parseAdvice } from './candidates';
import type { TradeoffPoint } from '@/types/api';

const speed = (median: number) => ({ median, min: median, max: median, mean: median, stddev: 0, cv: 0, n: 3 });

describe('fromTradeoff', () => {
  it('keeps settings with a size and both speeds, derives raw bytes from the ratio', () => {
    const points = [
      { setting: 505, algorithm: 5, compressed_bytes: 1000, ratio: 3.5, compress_mbps: speed(50), decompress_mbps: speed(900) },
      { setting: 0, algorithm: 0, compressed_bytes: 3500, ratio: 1, compress_mbps: speed(9000), decompress_mbps: speed(9000) },
      { setting: 101, algorithm: 1, compressed_bytes: null, ratio: null, compress_mbps: null, decompress_mbps: null },
      // ROOT's old zlib: the API ranks what `advise` ranks only (it would answer 422)
      { setting: 301, algorithm: 3, compressed_bytes: 1100, ratio: 3.2, compress_mbps: speed(40), decompress_mbps: speed(300) },
    ] as unknown as TradeoffPoint[];
    expect(fromTradeoff(points, 'none')).toEqual([
      { setting: 505, preconditioner: 'none', raw_bytes: 3500, compressed_bytes: 1000, compress_mb_s: 50, decompress_mb_s: 900 },
    ]);
  });
});

describe('parseAdvice', () => {
  it('reads the measured settings and the model of advise --json', () => {
    const text = JSON.stringify({
      file: 'f.root',
      model: { reads_per_file: 50 },
      measured: [{ setting: 101, preconditioner: 'none', raw_bytes: 10, compressed_bytes: 4, compress_mb_s: 1, decompress_mb_s: 2, ratio: 2.5 }],
    });
    const a = parseAdvice(text);
    expect(a.file).toBe('f.root');
    expect(a.candidates).toHaveLength(1);
    expect(a.model?.reads_per_file).toBe(50);
    expect(a.model?.months).toBe(36);
  });
  it('reads the per type class and per branch sizes, trimmed to what the server ranks', () => {
    const text = JSON.stringify({
      measured: [{ setting: 101, raw_bytes: 10, compressed_bytes: 4, compress_mb_s: 1, decompress_mb_s: 2 }],
      type_classes: [{ key: 'float', type_class: 'float', raw_bytes: 10, share: 1, branches: 2, recommended: '101', sizes: [{ setting: 101, preconditioner: 'none', compressed_bytes: 4 }] }],
    });
    const a = parseAdvice(text);
    expect(a.typeClasses).toEqual([{ key: 'float', type_class: 'float', raw_bytes: 10, share: 1, sizes: [{ setting: 101, preconditioner: 'none', compressed_bytes: 4 }] }]);
    expect(a.branches).toEqual([]);
    expect(() => parseAdvice(JSON.stringify({ measured: JSON.parse(text).measured, branches: [{ key: 'x' }] }))).toThrow('branches[0]');
  });
  it('names what is wrong', () => {
    expect(() => parseAdvice('nope')).toThrow('not a JSON file');
    expect(() => parseAdvice('{}')).toThrow('measured');
    expect(() => parseAdvice(JSON.stringify({ measured: [{ setting: 'x' }] }))).toThrow('measured[0].setting');
  });
});
