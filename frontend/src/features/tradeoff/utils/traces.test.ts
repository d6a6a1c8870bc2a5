import { describe, expect, it } from 'vitest';
import type { PlotPoint } from './relative';
import { buildTraces, clickedPoint, pointText } from './traces';

function p(setting: number, ratio: number, compress: number | null): PlotPoint {
  return {
    setting, algorithm: Math.floor(setting / 100), level: setting % 100, codec: 'x', ratio, compressedBytes: 100,
    compress, compressMin: compress, compressMax: compress, decompress: 1000, decompressMin: 1000, decompressMax: 1000,
  };
}

describe('buildTraces', () => {
  const now = [p(101, 3, 100), p(109, 3.5, 10), p(505, 4, 150), p(404, 2.5, null), p(401, 2, 700)];
  it('draws one trace per algorithm with every point that has a speed, plus the Pareto line', () => {
    const { data, count, annotations } = buildTraces([{ machine: 'm', points: now }], [], 'compress', false);
    expect(count).toBe(4); // 404 failed: no speed, not plotted
    const names = data.map((t) => t.name);
    expect(names).toEqual(['ZLIB', 'LZ4', 'ZSTD', 'Pareto frontier']);
    const front = data[3] as { x: number[]; y: number[] };
    expect(front.x).toEqual([2, 4]); // LZ4-1 (fast) and ZSTD-5 (dense) dominate both ZLIB points
    expect(front.y).toEqual([700, 150]);
    expect(annotations).toEqual([]);
  });
  it('adds ghost baseline points and one arrow per moved setting, in log10 for the log axis', () => {
    const old = [p(101, 3, 130), p(109, 3.5, 10), p(505, 4, 150), p(401, 2, 700)];
    const { data, annotations } = buildTraces([{ machine: 'm', points: now }], [{ machine: 'm', points: old }], 'compress', false);
    expect(data.some((t) => t.name === 'baseline · m')).toBe(true);
    expect(annotations).toHaveLength(1); // only ZLIB-1 moved
    expect(annotations[0]?.ay).toBeCloseTo(Math.log10(130));
    expect(annotations[0]?.y).toBeCloseTo(Math.log10(100));
  });
  it('on the instructions axis, the frontier takes the fewest instructions per MB', () => {
    // as counts: LZ4-1 the fewest (200), ZLIB-9 the most; ZSTD-5 densest
    const counted = [p(101, 3, 1000), p(109, 3.5, 5000), p(505, 4, 800), p(401, 2, 200)];
    const { data } = buildTraces([{ machine: 'm', points: counted }], [], 'compress', false, 'instructions');
    const front = data.find((t) => t.name === 'Pareto frontier') as { x: number[]; y: number[] };
    expect(front.x).toEqual([2, 4]);
    expect(front.y).toEqual([200, 800]);
    const zstd = data.find((t) => t.name === 'ZSTD') as { hovertemplate: string };
    expect(zstd.hovertemplate).toContain('instructions/MB');
  });
  it('tells which point a click hit: series, setting, current or baseline', () => {
    const old = [p(101, 3, 130)];
    const { data } = buildTraces([{ machine: 'a', points: now }, { machine: 'b', points: now }], [{ machine: 'a', points: old }], 'compress', false);
    const cd = (name: string) => (data.find((t) => t.name === name) as { customdata: unknown[] }).customdata[0];
    expect(clickedPoint(cd('ZSTD · b'))).toEqual({ baseline: false, series: 1, setting: 505 });
    expect(clickedPoint(cd('baseline · a'))).toEqual({ baseline: true, series: 0, setting: 101 });
    expect(clickedPoint(undefined)).toBeNull();
    expect(clickedPoint(['x', 'm', 505])).toBeNull();
  });
});

describe('point labels', () => {
  it('name the machine when several share the plot', () => {
    expect(pointText(505, 'haswell-01', false)).toBe('ZSTD-5');
    expect(pointText(505, 'haswell-01', true)).toBe('ZSTD-5 · haswell-01');
  });
});
