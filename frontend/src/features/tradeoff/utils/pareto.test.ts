import { describe, expect, it } from 'vitest';
import { paretoFront } from './pareto';

type P = { name: string; ratio: number | null; speed: number | null };
const front = (pts: P[]) => paretoFront(pts, (p) => p.ratio, (p) => p.speed).map((p) => p.name);

describe('paretoFront', () => {
  it('keeps only non-dominated points, sorted by ratio', () => {
    const pts: P[] = [
      { name: 'lz4-1', ratio: 2.0, speed: 700 },
      { name: 'zlib-1', ratio: 3.0, speed: 90 },
      { name: 'zstd-5', ratio: 3.2, speed: 150 }, // dominates zlib-1
      { name: 'lzma-7', ratio: 4.1, speed: 3 },
      { name: 'zlib-9', ratio: 3.1, speed: 10 }, // dominated by zstd-5
      { name: 'lz4-4', ratio: 2.5, speed: 80 }, // dominated by zstd-5
    ];
    expect(front(pts)).toEqual(['lz4-1', 'zstd-5', 'lzma-7']);
  });

  it('ignores points without a speed and keeps exact duplicates (neither dominates)', () => {
    const pts: P[] = [
      { name: 'a', ratio: 2, speed: 100 },
      { name: 'b', ratio: 2, speed: 100 },
      { name: 'failed', ratio: 9, speed: null },
      { name: 'nan', ratio: Number.NaN, speed: 5 },
    ];
    expect(front(pts)).toEqual(['a', 'b']);
  });

  it('drops a point equal in one coordinate and worse in the other', () => {
    const pts: P[] = [
      { name: 'fast', ratio: 2, speed: 200 },
      { name: 'same-ratio-slower', ratio: 2, speed: 100 },
      { name: 'same-speed-smaller', ratio: 1.5, speed: 200 },
    ];
    expect(front(pts)).toEqual(['fast']);
  });

  it('returns an empty front for no points', () => {
    expect(front([])).toEqual([]);
  });
});
