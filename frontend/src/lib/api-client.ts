// One fetch wrapper for the whole app: JSON in/out, the API's error envelope
// turned into an ApiError with the server's message.
import type { ApiErrorBody } from '@/types/api';

export const API_PREFIX = '/api/v1';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown[];

  constructor(status: number, code: string, message: string, details: unknown[] = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];

/** Query string from a plain object; empty values are left out so URLs stay short. */
export function toQuery(params: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) {
      for (const v of value) search.append(key, String(v));
    } else {
      search.append(key, String(value));
    }
  }
  const s = search.toString();
  return s ? `?${s}` : '';
}

export function apiUrl(path: string, params: Record<string, QueryValue> = {}): string {
  return `${API_PREFIX}${path}${toQuery(params)}`;
}

async function parseError(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON (proxy error page, ...): fall through to the status text
  }
  const err = (body as ApiErrorBody | null)?.error;
  if (err && typeof err.message === 'string') {
    return new ApiError(response.status, err.code ?? 'error', err.message, err.details ?? []);
  }
  const detail = (body as { detail?: unknown } | null)?.detail;
  const message = typeof detail === 'string' ? detail : `${response.status} ${response.statusText}`;
  return new ApiError(response.status, 'http_error', message);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH';
  body?: unknown;
  token?: string | null;
  signal?: AbortSignal;
}

export async function apiRequest<T>(
  path: string,
  params: Record<string, QueryValue> = {},
  options: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const response = await fetch(apiUrl(path, params), {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  if (!response.ok) throw await parseError(response);
  return (await response.json()) as T;
}
