import { describe, expect, it } from 'vitest';
import { fmtCodecs } from './codecs';

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
