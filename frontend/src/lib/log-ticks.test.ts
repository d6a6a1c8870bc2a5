import { describe, expect, it } from 'vitest';
import { logTicks } from './log-ticks';

describe('logTicks', () => {
  it('writes every tick in full, 1-2-5 steps around the data', () => {
    const { tickvals, ticktext } = logTicks([21, 95.8, 135.6, 183.8, 2190]);
    expect(tickvals).toEqual([20, 50, 100, 200, 500, 1000, 2000, 5000]);
    expect(ticktext).toEqual(['20', '50', '100', '200', '500', '1,000', '2,000', '5,000']);
  });
  it('keeps the powers of ten over many decades, and handles no data', () => {
    expect(logTicks([0.5, 20000]).ticktext).toEqual(['1', '10', '100', '1,000', '10,000']);
    expect(logTicks([])).toEqual({ tickvals: [], ticktext: [] });
  });
});
