import { describe, expect, it } from 'vitest';
import type { CodecSeries, History } from '@/types/api';
import { codecKeyOf, dashWord, LEGACY, lineStyle, otherSeries, seriesOrder } from './codec-lines';

function series(key: string, set = key): CodecSeries {
  return { id: 1, set, root_version: null, series_key: key, libraries: {}, commits: 1, first_libraries: {}, first_root_version: null, latest_commits: [] };
}

function history(shown: string | null, listed: string[]): History {
  return {
    series: null, points: [], changes: [], downsampled: false, total_points: 0,
    codecs: shown ? series(shown) : null, codec_series: listed.map((k) => series(k)),
  };
}

describe('codec lines', () => {
  it('names the series an answer shows, legacy when none', () => {
    expect(codecKeyOf(history('builtin', ['builtin']))).toBe('builtin');
    expect(codecKeyOf(history(null, []))).toBe(LEGACY);
  });
  it('fetches every other listed series of each answer, once per answer', () => {
    const answers = [history('h1', ['h1', 'builtin']), undefined, history('builtin', ['builtin'])];
    expect(otherSeries(answers)).toEqual([{ index: 0, codecs: 'builtin' }]);
  });
  it('gives each codec series its own dash and marker', () => {
    expect(lineStyle(0)).toEqual({ dash: 'solid', symbol: 'circle' });
    expect(lineStyle(1)).toEqual({ dash: 'dash', symbol: 'square' });
    expect(dashWord(2)).toBe('dotted');
    expect(lineStyle(-1)).toEqual(lineStyle(0));
  });
  it('orders the series as the answers list them, each once', () => {
    expect(seriesOrder([history('a', ['a', 'b']), history('b', ['b', 'c'])]).map((s) => s.series_key)).toEqual(['a', 'b', 'c']);
  });
});
