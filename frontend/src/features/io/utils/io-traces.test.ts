import { describe, expect, it } from 'vitest';
import type { IoSetting } from '@/types/api';
import { choices, scalingTraces, splits, splitTraces } from './io-traces';

const setting = (s: number, label: string, share: number | null, mbps1: number, mbps2: number): IoSetting => ({
  setting: s,
  label,
  form: 'ttree',
  ratio: 3,
  codec_compress_mbps: 20,
  codec_decompress_mbps: 200,
  reads: [
    { threads: 1, cache: 'on', page_cache: 'warm', read_mbps: mbps1, uncompressed_bytes: 650000, codec_share: share },
    { threads: 2, cache: 'on', page_cache: 'warm', read_mbps: mbps2, uncompressed_bytes: 650000, codec_share: share },
    { threads: 1, cache: 'off', page_cache: 'cold', read_mbps: 10, uncompressed_bytes: 650000, codec_share: null },
  ],
  writes: [{ threads: 1, write_mbps: 8, uncompressed_bytes: 650000, codec_share: 0.4 }],
});

const SEL = { form: 'ttree', cache: 'on', pageCache: 'warm', threads: 1 };

describe('io splits', () => {
  it('splits a read into codec and rest by the share', () => {
    const [zlib, zstd] = splits([setting(101, 'ZLIB-1', 0.25, 50, 80), setting(505, 'ZSTD-5', 0.5, 40, 70)], SEL, 'read');
    expect(zlib?.codecMs).toBeCloseTo(1000 / 50 / 4);
    expect(zlib?.restMs).toBeCloseTo((1000 / 50) * 0.75);
    expect(zstd?.share).toBe(0.5);
  });
  it('keeps a read without a codec row as all rest', () => {
    const [row] = splits([setting(101, 'ZLIB-1', null, 50, 80)], { ...SEL, cache: 'off', pageCache: 'cold' }, 'read');
    expect(row?.codecMs).toBeNull();
    expect(row?.restMs).toBeCloseTo(100);
    expect(splitTraces(row ? [row] : [], 'read')[1]?.name).toMatch(/^whole read/);
  });
  it('splits writes by the compression share', () => {
    const [row] = splits([setting(101, 'ZLIB-1', 0.25, 50, 80)], SEL, 'write');
    expect(row?.codecMs).toBeCloseTo((1000 / 8) * 0.4);
  });
  it('draws read MB/s against threads per setting', () => {
    const [trace] = scalingTraces([setting(505, 'ZSTD-5', 0.5, 40, 70)], SEL);
    expect(trace).toMatchObject({ x: [1, 2], y: [40, 70], name: 'ZSTD-5 (505)' });
    expect(choices([setting(505, 'ZSTD-5', 0.5, 40, 70)], 'cache')).toEqual(['off', 'on']);
  });
});
