import { describe, expect, it } from 'vitest';
import { axisTicks, pointLabels, releaseName } from './axis';

const pt = (order: number, message: string | null = null) => ({
  order,
  sha: `${order}`.padStart(40, 'a'),
  date: `2026-01-${String(order + 1).padStart(2, '0')}T10:00:00Z`,
  message,
  value: order * 2,
});

describe('history axis', () => {
  it('names releases by their message', () => {
    expect(releaseName('ROOT 6.40.00 (release)')).toBe('ROOT 6.40.00');
    expect(releaseName('ROOT 6.39.01 (development build)')).toBe('ROOT 6.39.01');
    expect(releaseName('Fix ROOT 6.40.00 (release) notes')).toBeNull();
    expect(releaseName(null)).toBeNull();
  });

  it('labels at most max ticks with dates or short shas', () => {
    const points = Array.from({ length: 30 }, (_, i) => pt(i));
    const byDate = axisTicks(points, 'date', 6);
    expect(byDate.tickvals.length).toBeLessThanOrEqual(6);
    expect(byDate.tickvals[0]).toBe(0);
    expect(byDate.ticktext[0]).toBe('2026-01-01');
    const bySha = axisTicks(points.slice(0, 3), 'sha');
    expect(bySha.tickvals).toEqual([0, 1, 2]);
    expect(bySha.ticktext[1]).toBe('aaaaaaa');
  });

  it('labels releases and the newest commit once', () => {
    const labels = pointLabels([pt(0, 'ROOT 6.38.00 (release)'), pt(1, 'ROOT 6.40.00 (release)'), pt(2, 'checkout')]);
    expect(labels.map((l) => [l.order, l.text, l.kind])).toEqual([
      [0, 'ROOT 6.38.00', 'release'],
      [1, 'ROOT 6.40.00', 'release'],
      [2, 'newest aaaaaaa', 'newest'],
    ]);
    expect(pointLabels([pt(0, 'ROOT 6.38.00 (release)')])).toHaveLength(1);
  });
});
