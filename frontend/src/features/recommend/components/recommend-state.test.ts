import { describe, expect, it } from 'vitest';
import { parseState, serializeState } from '@/lib/url-state';
import { DEFAULT_MODEL } from '../utils/candidates';
import { modelOf, modelPatch, recommendSchema } from './recommend-state';

const parse = (query: string) => parseState(recommendSchema, new URLSearchParams(query));

describe('recommend URL state', () => {
  it('opens on the default cost model and the tracker, nothing in the URL', () => {
    const state = parse('');
    expect(modelOf(state)).toEqual(DEFAULT_MODEL);
    expect(state.advise).toBe(0);
    expect(serializeState(recommendSchema, state).toString()).toBe('');
  });

  it('keeps source and cost model in the URL: a reload ranks the same settings under the same costs', () => {
    const state = { ...parse(''), machine: 'haswell-01', dataset: 'hzz', advise: 7, ...modelPatch({ cpu_per_core_hour: 0, reads_per_file: 1000 }) };
    const query = serializeState(recommendSchema, state).toString();
    expect(query).toBe('advise=7&cpu_per_core_hour=0&dataset=hzz&machine=haswell-01&reads_per_file=1000');
    expect(parse(query)).toEqual(state);
    expect(modelOf(parse(query))).toEqual({ ...DEFAULT_MODEL, cpu_per_core_hour: 0, reads_per_file: 1000 });
  });

  it('takes only the cost model from an advice file model', () => {
    const fromFile = { ...DEFAULT_MODEL, months: 12, extra: 'ignored' } as unknown as typeof DEFAULT_MODEL;
    expect(modelPatch(fromFile)).toEqual({ ...DEFAULT_MODEL, months: 12 });
  });
});
