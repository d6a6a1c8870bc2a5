import { describe, expect, it } from 'vitest';
import { fastScatter, WEBGL_MIN_POINTS } from './webgl';

describe('fastScatter', () => {
  it('draws the default history (2 000 points a series) and all of 10 000 as SVG, even where WebGL works', () => {
    expect(fastScatter(2000, () => true)).toBe('scatter');
    expect(fastScatter(10_000, () => true)).toBe('scatter');
    expect(fastScatter(WEBGL_MIN_POINTS, () => true)).toBe('scatter');
  });

  it('switches to WebGL above the threshold, and only where WebGL works', () => {
    expect(fastScatter(50_000, () => true)).toBe('scattergl');
    expect(fastScatter(50_000, () => false)).toBe('scatter');
  });

  it('does not create a WebGL context for a small plot', () => {
    let asked = false;
    fastScatter(100, () => (asked = true));
    expect(asked).toBe(false);
  });
});
