import { describe, expect, it } from 'vitest';
import { plotText } from './plot-text';

describe('plotText', () => {
  it('turns markup from outside into text Plotly shows as written', () => {
    expect(plotText('<a href="https://evil.example">x</a>')).toBe('&lt;a href="https://evil.example"&gt;x&lt;/a&gt;');
    expect(plotText('a & b <br> c')).toBe('a &amp; b &lt;br&gt; c');
    expect(plotText('&lt;')).toBe('&amp;lt;');
  });
  it('leaves plain text alone and maps missing text to empty', () => {
    expect(plotText('ZLIB-6 · nanoaod · epyc-01')).toBe('ZLIB-6 · nanoaod · epyc-01');
    expect(plotText(null)).toBe('');
    expect(plotText(undefined)).toBe('');
  });
});
