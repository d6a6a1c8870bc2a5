// Every view keeps its state in the URL so a link reproduces it exactly.
// A page declares a schema (field -> kind + default); parse() and serialize()
// are pure and inverse of each other (round trip tested); defaults are left
// out of the URL so links stay short and keep working when defaults change.
import { useCallback, useLayoutEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';

export type FieldSpec =
  | { kind: 'string'; default: string }
  | { kind: 'number'; default: number }
  | { kind: 'bool'; default: boolean }
  | { kind: 'list'; default: readonly string[] };

export type Schema = Record<string, FieldSpec>;

type ValueOf<F extends FieldSpec> = F extends { kind: 'string' }
  ? string
  : F extends { kind: 'number' }
    ? number
    : F extends { kind: 'bool' }
      ? boolean
      : readonly string[];

export type StateOf<S extends Schema> = { [K in keyof S]: ValueOf<S[K]> };

export const str = (d = ''): { kind: 'string'; default: string } => ({ kind: 'string', default: d });
export const num = (d: number): { kind: 'number'; default: number } => ({ kind: 'number', default: d });
export const bool = (d = false): { kind: 'bool'; default: boolean } => ({ kind: 'bool', default: d });
export const list = (d: readonly string[] = []): { kind: 'list'; default: readonly string[] } => ({
  kind: 'list',
  default: d,
});

function parseField(spec: FieldSpec, params: URLSearchParams, key: string): unknown {
  switch (spec.kind) {
    case 'list': {
      const all = params.getAll(key);
      return all.length ? all : spec.default;
    }
    case 'string': {
      const v = params.get(key);
      return v === null ? spec.default : v;
    }
    case 'number': {
      const v = params.get(key);
      if (v === null || v.trim() === '') return spec.default;
      const n = Number(v);
      return Number.isFinite(n) ? n : spec.default;
    }
    case 'bool': {
      const v = params.get(key);
      if (v === null) return spec.default;
      return v === '1' || v === 'true';
    }
  }
}

export function parseState<S extends Schema>(schema: S, params: URLSearchParams): StateOf<S> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(schema)) out[key] = parseField(spec, params, key);
  return out as StateOf<S>;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export function serializeState<S extends Schema>(schema: S, state: StateOf<S>): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of Object.keys(schema).sort()) {
    const spec = schema[key] as FieldSpec;
    const value = (state as Record<string, unknown>)[key];
    switch (spec.kind) {
      case 'list': {
        const v = value as readonly string[];
        // An explicitly empty list differs from the default: mark it with one empty value.
        if (sameList(v, spec.default)) break;
        if (v.length === 0) params.append(key, '');
        else for (const item of v) params.append(key, item);
        break;
      }
      case 'string':
        if (value !== spec.default) params.set(key, value as string);
        break;
      case 'number':
        if (value !== spec.default && Number.isFinite(value as number)) params.set(key, String(value));
        break;
      case 'bool':
        if (value !== spec.default) params.set(key, value ? '1' : '0');
        break;
    }
  }
  return params;
}

/** Removes the empty marker of an explicitly empty list after parsing. */
export function cleanList(v: readonly string[]): string[] {
  return v.filter((x) => x !== '');
}

/**
 * The params a view asked the router for that no render shows yet.
 *
 * react-router hands a functional update the params of the last render, and
 * its navigations render in a transition: under load, a second edit made
 * before that render (tick a box, then another) would start from the old URL
 * and undo the first. Edits therefore build on the newest params asked for.
 */
export class PendingParams {
  private asked: string[] = [];

  /** What the next edit builds on: the newest params asked for, else the shown ones. */
  base(shown: string): string {
    return this.asked.at(-1) ?? shown;
  }

  ask(next: string, shown: string): void {
    if (next !== this.base(shown)) this.asked.push(next);
  }

  /** A render shows `shown`: that ask and the older ones are done; any other URL (back, a link) ends them all. */
  rendered(shown: string): void {
    const i = this.asked.lastIndexOf(shown);
    this.asked = i === -1 ? [] : this.asked.slice(i + 1);
  }
}

export function useUrlState<S extends Schema>(
  schema: S,
): [StateOf<S>, (patch: Partial<StateOf<S>>, opts?: { replace?: boolean }) => void] {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  const state = useMemo(() => parseState(schema, new URLSearchParams(key)), [schema, key]);
  const [pending] = useState(() => new PendingParams());
  useLayoutEffect(() => pending.rendered(key), [pending, key]);
  const update = useCallback(
    (patch: Partial<StateOf<S>>, opts: { replace?: boolean } = {}) => {
      const base = parseState(schema, new URLSearchParams(pending.base(key)));
      const next = serializeState(schema, { ...base, ...patch });
      pending.ask(next.toString(), key);
      setParams(next, { replace: opts.replace ?? false });
    },
    [schema, key, pending, setParams],
  );
  return [state, update];
}
