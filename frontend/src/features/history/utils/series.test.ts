import { describe, expect, it } from 'vitest';
import { decodeSeries, encodeSeries, isRegression } from './series';

describe('history series keys', () => {
  it('round-trip through the URL encoding', () => {
    const s = { setting: 505, dataset: 'nanoAOD_2015_CMS_Open_Data_ttbar', machine: 'epyc-1', metric: 'decompress_mbps' };
    expect(decodeSeries(encodeSeries(s))).toEqual(s);
  });
  it('reject malformed keys', () => {
    expect(decodeSeries('505~a~b')).toBeNull();
    expect(decodeSeries('x~a~b~ratio')).toBeNull();
    expect(decodeSeries('505~a~b~speed')).toBeNull();
  });
  it('know which direction is worse', () => {
    expect(isRegression('compress_mbps', -5)).toBe(true);
    expect(isRegression('ratio', 1)).toBe(false);
    expect(isRegression('compressed_bytes', 1)).toBe(true);
  });
});
