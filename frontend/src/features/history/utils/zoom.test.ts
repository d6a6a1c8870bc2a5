import { describe, expect, it } from 'vitest';
import { formatZoom, parseZoom, xRangeOf } from './zoom';

describe('history zoom in the URL', () => {
  it('round-trips a range and rejects nonsense', () => {
    expect(parseZoom(formatZoom([120, 480.26]))).toEqual([120, 480.3]);
    expect(parseZoom('')).toBeNull();
    expect(parseZoom('9~3')).toBeNull();
    expect(parseZoom('a~b')).toBeNull();
    expect(formatZoom(null)).toBe('');
  });
  it('reads Plotly relayout events', () => {
    expect(xRangeOf({ 'xaxis.range[0]': 1, 'xaxis.range[1]': 5 })).toEqual([1, 5]);
    expect(xRangeOf({ 'xaxis.autorange': true })).toBeNull();
    expect(xRangeOf({ 'yaxis.range[0]': 1 })).toBeUndefined();
  });
});
