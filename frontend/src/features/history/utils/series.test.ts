import { describe, expect, it } from 'vitest';
import { addSeries, assignColors, decodeSeries, encodeSeries, isRegression, replaceSeries, seriesColor } from './series';

const zstd5 = { setting: 505, dataset: 'nanoAOD_2015_CMS_Open_Data_ttbar', machine: 'epyc-1', metric: 'decompress_mbps' };

describe('history series keys', () => {
  it('round-trip through the URL encoding, with and without a colour', () => {
    expect(decodeSeries(encodeSeries(zstd5))).toEqual(zstd5);
    expect(decodeSeries(encodeSeries({ ...zstd5, color: 3 }))).toEqual({ ...zstd5, color: 3 });
  });
  it('reject malformed keys', () => {
    expect(decodeSeries('505~a~b')).toBeNull();
    expect(decodeSeries('x~a~b~ratio')).toBeNull();
    expect(decodeSeries('505~a~b~speed')).toBeNull();
    expect(decodeSeries('505~a~b~ratio~-1')).toBeNull();
  });
  it('know which direction is worse', () => {
    expect(isRegression('compress_mbps', -5)).toBe(true);
    expect(isRegression('ratio', 1)).toBe(false);
    expect(isRegression('compressed_bytes', 1)).toBe(true);
  });
});

describe('stable colours', () => {
  const zlib6 = { ...zstd5, setting: 106 };
  const lz4 = { ...zstd5, setting: 404 };
  it('an edited series keeps its colour', () => {
    const keys = assignColors([zlib6, zstd5]);
    const edited = replaceSeries(keys, 0, { setting: 109 });
    expect(edited[0]?.setting).toBe(109);
    expect(seriesColor(edited[0]!)).toBe(seriesColor(keys[0]!));
    expect(edited[1]).toEqual(keys[1]);
  });
  it('removing a series does not recolour the others, and a new one takes the free colour', () => {
    const keys = assignColors([zlib6, zstd5, lz4]);
    const after = keys.filter((_, i) => i !== 0);
    expect(after.map(seriesColor)).toEqual(keys.slice(1).map(seriesColor));
    const added = addSeries(after, { ...zstd5, setting: 201 });
    expect(added.at(-1)?.color).toBe(0);
    expect(addSeries(added, zstd5)).toHaveLength(added.length);
  });
});
