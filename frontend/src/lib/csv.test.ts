import { describe, expect, it } from 'vitest';
import { parseCsv, toCsv } from './csv';

describe('csv export', () => {
  it('quotes commas, quotes and newlines, and parses back to the same cells', () => {
    const header = ['sha', 'message', 'value'];
    const rows = [
      ['abc', 'fix "zlib", again', 1.5],
      ['def', 'two\nlines', null],
      ['ghi', 'plain', Number.NaN],
    ];
    const text = toCsv(header, rows);
    expect(text.startsWith('sha,message,value\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([
      ['sha', 'message', 'value'],
      ['abc', 'fix "zlib", again', '1.5'],
      ['def', 'two\nlines', ''],
      ['ghi', 'plain', ''],
    ]);
  });
});
