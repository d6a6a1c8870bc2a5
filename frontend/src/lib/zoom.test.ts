import { describe, expect, it } from 'vitest';
import { axisRange, axisRangeOf, formatRange, parseRange } from './zoom';

describe('zoom in the URL', () => {
  it('keeps five significant digits by default, enough for a ratio or a log10 speed axis', () => {
    expect(formatRange([3.123456, 4.98765])).toBe('3.1235~4.9877');
    expect(parseRange(formatRange([1.234567, 3.45678]))).toEqual([1.2346, 3.4568]);
    expect(parseRange('1e-3~2')).toEqual([0.001, 2]);
    expect(parseRange('2~1')).toBeNull();
  });
  it('reads either axis of a relayout event', () => {
    const zoomed = { 'xaxis.range[0]': 3, 'xaxis.range[1]': 4, 'yaxis.range[0]': 1.5, 'yaxis.range[1]': 2.5 };
    expect(axisRangeOf(zoomed, 'yaxis')).toEqual([1.5, 2.5]);
    expect(axisRangeOf({ 'xaxis.autorange': true, 'yaxis.autorange': true }, 'yaxis')).toBeNull();
    expect(axisRangeOf({ 'yaxis.range': [1, 2] }, 'yaxis')).toEqual([1, 2]);
    expect(axisRangeOf({ 'xaxis.range[0]': 3, 'xaxis.range[1]': 4 }, 'yaxis')).toBeUndefined();
  });
  it('gives Plotly a fixed range or autorange', () => {
    expect(axisRange([1, 2])).toEqual({ range: [1, 2], autorange: false });
    expect(axisRange(null)).toEqual({ autorange: true });
  });
});
