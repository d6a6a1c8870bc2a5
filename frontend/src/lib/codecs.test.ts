import { describe, expect, it } from 'vitest';
import type { CodecSeries } from '@/types/api';
import { findSeries, fmtCodecs, seriesLabel, seriesName, seriesParam, unionSeries } from './codecs';

const HOST = { zlib: '1.2.13', lzma: '5.4.1', zstd: '1.5.4', lz4: '1.9.4' };
const K1 = '1'.repeat(64);
const K2 = '2'.repeat(64);

function series(over: Partial<CodecSeries>): CodecSeries {
  return {
    id: 1, set: 'host', root_version: null, series_key: K1, libraries: HOST, commits: 8,
    first_libraries: HOST, first_root_version: null, latest_commits: [], ...over,
  };
}

describe('fmtCodecs', () => {
  it('names the set and the libraries, codecs first', () => {
    const text = fmtCodecs({
      id: 1, set: 'builtin', root_version: null, series_key: 'builtin',
      libraries: { zlib: '1.2.13', lzma: '5.4.1', zstd: '1.5.7', lz4: '1.10.0' },
    });
    expect(text).toBe('builtin: zstd 1.5.7 · lz4 1.10.0 · lzma 5.4.1 · zlib 1.2.13');
  });
  it('says when nothing was recorded', () => {
    expect(fmtCodecs(null)).toBe('codec versions not recorded');
  });
  it('shows the ROOT release of a named set', () => {
    expect(fmtCodecs({ id: 2, set: 'root-6.40.00', root_version: '6.40.00', series_key: 'k', libraries: {} })).toBe(
      'root-6.40.00 (ROOT 6.40.00): ',
    );
  });
});

describe('seriesLabel', () => {
  it('names the releases and the libraries that moved in the builtin series', () => {
    // a release's bundled codecs: set root-6.40.00, series builtin (as `make demo` stores them)
    const builtin = series({
      set: 'root-6.40.00', series_key: 'builtin', root_version: '6.40.00', first_root_version: '6.38.00', commits: 2,
      libraries: { zstd: '1.5.7', lz4: '1.10.0', lzma: '5.8.2', zlib: '1.2.13' },
      first_libraries: { zstd: '1.4.8', lz4: '1.9.3', lzma: '5.2.4', zlib: '1.2.13' },
    });
    expect(seriesLabel(builtin)).toBe(
      "builtin: ROOT's own copies, ROOT 6.38.00 → 6.40.00 (zstd 1.4.8 → 1.5.7, lz4 1.9.3 → 1.10.0, lzma 5.2.4 → 5.8.2) · 2 commits",
    );
  });
  it('names every library of a series whose versions never moved', () => {
    expect(seriesLabel(series({ commits: 1 }))).toBe(
      "host: the machine's libraries (zstd 1.5.4, lz4 1.9.4, lzma 5.4.1, zlib 1.2.13) · 1 commit",
    );
  });
});

describe('seriesName', () => {
  it('is the key when it is a word, the set when the key is a hash', () => {
    expect(seriesName({ set: 'root-6.40.00', series_key: 'builtin' })).toBe('builtin');
    expect(seriesName({ set: 'host', series_key: 'a'.repeat(64) })).toBe('host');
  });
});

describe('seriesParam / findSeries / unionSeries', () => {
  const host = series({});
  const builtin = series({ set: 'builtin', series_key: 'builtin' });
  const upgraded = series({ series_key: K2, libraries: { ...HOST, zstd: '1.5.7' } });
  const release = series({ set: 'root-6.40.00', series_key: 'builtin' });
  it('uses the series name while it is unique, else the series key', () => {
    expect(seriesParam(builtin, [host, builtin])).toBe('builtin');
    expect(seriesParam(release, [host, release])).toBe('builtin');
    expect(seriesParam(host, [host, builtin])).toBe('host');
    expect(seriesParam(host, [host, upgraded])).toBe(K1);
  });
  it('finds a series by key first, then by name, then by set', () => {
    expect(findSeries([upgraded, host], K1)).toBe(host);
    expect(findSeries([upgraded, host], 'host')).toBe(upgraded);
    expect(findSeries([host, release], 'builtin')).toBe(release);
    expect(findSeries([host, release], 'root-6.40.00')).toBe(release);
    expect(findSeries([host], 'nothing')).toBeUndefined();
  });
  it('keeps each series once, in the order first seen', () => {
    expect(unionSeries([[host, builtin], [builtin, upgraded]]).map((s) => s.series_key)).toEqual([K1, 'builtin', K2]);
  });
});
