import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadToken, saveToken, tokenRemembered } from './token-storage';

function fakeStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() { return items.size; },
    clear: () => items.clear(),
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => void items.delete(k),
    setItem: (k, v) => void items.set(k, v),
  };
}

describe('token storage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('remembers a token only when asked, and forgets it when unticked', () => {
    vi.stubGlobal('localStorage', fakeStorage());
    expect(loadToken()).toBe('');
    saveToken('secret', false);
    expect(tokenRemembered()).toBe(false);
    saveToken('secret', true);
    expect(loadToken()).toBe('secret');
    saveToken('secret', false);
    expect(loadToken()).toBe('');
  });

  it('works without storage (disabled, or none at all)', () => {
    expect(loadToken()).toBe('');
    expect(() => saveToken('secret', true)).not.toThrow();
  });
});
