import { describe, expect, it } from 'vitest';
import { datasetKindLabel } from './dataset-kind';

describe('dataset kind labels', () => {
  const kinds = {
    hzz: { kind: 'ttree' },
    'hzz-rntuple': { kind: 'rntuple', page_size: null },
    'p64k': { kind: 'rntuple', page_size: 65536 },
    'p1m': { kind: 'rntuple', page_size: 1048576 },
    odd: { kind: 'rntuple', page_size: 1000 },
    both: { kind: 'mixed' },
  };
  it('name the kind and a re-paged dataset page size', () => {
    expect(datasetKindLabel('hzz', [], kinds)).toBe('TTree baskets');
    expect(datasetKindLabel('hzz-rntuple', [], kinds)).toBe('RNTuple pages');
    expect(datasetKindLabel('p64k', [], kinds)).toBe('RNTuple pages, 64 KiB');
    expect(datasetKindLabel('p1m', [], kinds)).toBe('RNTuple pages, 1 MiB');
    expect(datasetKindLabel('odd', [], kinds)).toBe('RNTuple pages, 1000 B');
    expect(datasetKindLabel('both', [], kinds)).toBe('TTree baskets + RNTuple pages');
  });
  it('fall back to synthetic or real baskets', () => {
    expect(datasetKindLabel('event', ['event'], kinds)).toBe('synthetic data');
    expect(datasetKindLabel('old', [], kinds)).toBe('real ROOT baskets');
  });
});
