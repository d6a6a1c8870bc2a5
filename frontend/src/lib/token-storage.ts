// The API token, one key for every page that takes one (runs' trigger form, the Changes
// page's status buttons, Recommend's advise runs). It is kept in memory; it goes to
// localStorage only when the user ticks "remember" (and is removed when they untick).
const KEY = 'basketbench.token';

/** The remembered token, '' when none is (or storage is disabled). */
export function loadToken(): string {
  try {
    return localStorage.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

/** Remember the token (remember and a token) or forget it (otherwise). */
export function saveToken(token: string, remember: boolean): void {
  try {
    if (remember && token) localStorage.setItem(KEY, token);
    else localStorage.removeItem(KEY);
  } catch {
    // storage disabled: the token still works for this page view
  }
}

/** Is a token remembered? (a form's "remember" box starts ticked when one is) */
export const tokenRemembered = (): boolean => loadToken() !== '';
