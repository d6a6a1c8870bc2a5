import { describe, expect, it } from 'vitest';
import type { Change, CompareRow, Configuration } from '@/types/api';
import { changeHistoryLink, compareRowHistoryLink, historyLink } from './history-links';

const configuration: Configuration = {
  id: 1, setting: 505, algorithm: 5, codec: 'zstd', level: 5, preconditioner: 'shuffle',
  dictionary_size: 0, basket_size: 0, mode: 'basket', threads: 1, label: 'ZSTD-5 +shuffle',
};

describe('history links', () => {
  it('names the series the way the history page reads it, defaults left out', () => {
    const change = { configuration, dataset: 'hzz', metric: 'decompress_mbps', machine: { id: 1, name: 'bench-01', tag: 'haswell', version: 2 } } as Change;
    expect(changeHistoryLink(change)).toBe('/history?s=505%7Ehzz%7Ebench-01%402%7Edecompress_mbps&pre=shuffle');
  });

  it('writes every configuration field that differs from the page default, in one order', () => {
    const c = { ...configuration, preconditioner: 'none', dictionary_size: 4096, basket_size: 65536, threads: 4, mode: 'file' };
    expect(historyLink({ setting: 101, dataset: 'nano', machine: 'epyc-01', metric: 'ratio' }, c)).toBe(
      '/history?s=101%7Enano%7Eepyc-01%7Eratio&dict=4096&basket=65536&threads=4&mode=file',
    );
  });

  it('links a compared row on the machine given', () => {
    const row = { configuration, dataset: 'hzz', metric: 'compress_mbps' } as CompareRow;
    expect(compareRowHistoryLink(row, 'haswell-01')).toBe('/history?s=505%7Ehzz%7Ehaswell-01%7Ecompress_mbps&pre=shuffle');
  });
});
