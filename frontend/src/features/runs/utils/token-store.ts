// The API token is kept in memory; it goes to localStorage only when the user
// ticks "remember" (and is removed from it when they untick).
const KEY = 'basketbench.token';

export function loadToken(): string {
  try {
    return localStorage.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

export function saveToken(token: string, remember: boolean): void {
  try {
    if (remember && token) localStorage.setItem(KEY, token);
    else localStorage.removeItem(KEY);
  } catch {
    // storage disabled: the token still works for this page view
  }
}

/** "abc123, def456\n789" -> ["abc123", "def456", "789"] */
export function parseShas(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
