import { describe, expect, it } from 'vitest';
import { bool, list, num, parseState, PendingParams, serializeState, str, type StateOf } from './url-state';

const schema = {
  commit: str(),
  machine: list(),
  dataset: str('nanoAOD'),
  threads: num(1),
  rel: bool(false),
  ref: num(505),
};
type S = StateOf<typeof schema>;

const roundTrip = (s: S): S => parseState(schema, new URLSearchParams(serializeState(schema, s).toString()));

describe('url state', () => {
  it('round-trips every kind of field through a URL string', () => {
    const s: S = { commit: 'abc123', machine: ['haswell-1', 'epyc-1'], dataset: 'DAOD PHYSLITE & co', threads: 4, rel: true, ref: 404 };
    expect(roundTrip(s)).toEqual(s);
  });

  it('leaves defaults out of the URL and restores them', () => {
    const defaults = parseState(schema, new URLSearchParams());
    expect(defaults).toEqual({ commit: '', machine: [], dataset: 'nanoAOD', threads: 1, rel: false, ref: 505 });
    expect(serializeState(schema, defaults).toString()).toBe('');
    expect(roundTrip(defaults)).toEqual(defaults);
  });

  it('writes keys in a stable order so equal views give equal links', () => {
    const a = serializeState(schema, { ...parseState(schema, new URLSearchParams()), ref: 101, commit: 'x' }).toString();
    expect(a).toBe('commit=x&ref=101');
  });

  it('falls back to defaults for malformed values', () => {
    const s = parseState(schema, new URLSearchParams('threads=abc&ref=&rel=0'));
    expect(s.threads).toBe(1);
    expect(s.ref).toBe(505);
    expect(s.rel).toBe(false);
  });

  it('keeps an explicitly emptied list distinct from the default', () => {
    const withDefault = { ...schema, machine: list(['a']) };
    const empty = { ...parseState(withDefault, new URLSearchParams()), machine: [] as string[] };
    const parsed = parseState(withDefault, serializeState(withDefault, empty));
    expect(parsed.machine.filter((m) => m !== '')).toEqual([]);
  });
});

describe('pending params', () => {
  it('builds a second edit on the first while no render shows it', () => {
    const p = new PendingParams();
    p.ask('machine=a&machine=b', 'machine=a');
    expect(p.base('machine=a')).toBe('machine=a&machine=b');
    p.ask('machine=a&machine=b&rel=1', 'machine=a');
    expect(p.base('machine=a')).toBe('machine=a&machine=b&rel=1');
  });

  it('follows the URL again once a render shows the newest ask', () => {
    const p = new PendingParams();
    p.ask('x=1', '');
    p.ask('x=2', '');
    p.rendered('x=1');
    expect(p.base('x=1')).toBe('x=2');
    p.rendered('x=2');
    expect(p.base('x=2')).toBe('x=2');
    expect(p.base('x=3')).toBe('x=3');
  });

  it('drops what it asked for when the URL goes elsewhere (back button, a link)', () => {
    const p = new PendingParams();
    p.ask('x=1', 'x=0');
    p.rendered('y=5');
    expect(p.base('y=5')).toBe('y=5');
  });

  it('does not hold an edit that changes nothing', () => {
    const p = new PendingParams();
    p.ask('x=0', 'x=0');
    expect(p.base('x=9')).toBe('x=9');
  });
});
