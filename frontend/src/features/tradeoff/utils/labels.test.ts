import { describe, expect, it } from 'vitest';
import { logTicks, placeLabels } from './labels';

describe('trade-off labels', () => {
  it('never place two labels on top of each other', () => {
    // ZLIB 1/4/9-like cluster: three points a few pixels apart
    const pts = [
      { px: 300, py: 200, text: 'ZLIB-1' },
      { px: 304, py: 204, text: 'ZLIB-4' },
      { px: 308, py: 199, text: 'ZLIB-9' },
      { px: 100, py: 100, text: 'LZ4-4' },
    ];
    const pos = placeLabels(pts, 600, 400);
    expect(pos[3]).toBe('top center');
    const chosen = pos.filter((p) => p !== null);
    expect(chosen.length).toBeGreaterThanOrEqual(3);
    // two labels of the cluster never share a position (they would overlap)
    expect(new Set(pos.slice(0, 3).filter(Boolean)).size).toBe(pos.slice(0, 3).filter(Boolean).length);
  });

  it('keep labels inside the plot', () => {
    expect(placeLabels([{ px: 2, py: 2, text: 'ZSTD-5' }], 600, 400)[0]).toBe('bottom right');
  });
});

describe('log ticks', () => {
  it('carry their decade', () => {
    const { tickvals, ticktext } = logTicks(150, 4000);
    expect(tickvals).toContain(2000);
    expect(ticktext[tickvals.indexOf(2000)]).toBe('2000');
    expect(ticktext.every((t) => t !== '2' && t !== '5')).toBe(true);
    expect(logTicks(5, 80000).ticktext).toContain('10k');
  });
});
