import { describe, expect, it } from 'vitest';
import type { Health } from '@/types/api';
import { speedExclusions } from './speed-exclusions';

const HEALTH: Health = {
  status: 'ok',
  database: 'ok',
  version: 'test',
  embedded: false,
  worker_tags: [],
  speed_exclusions: [
    {
      tag: 'haswell',
      excluded_documents: 3,
      recent_documents: 10,
      reasons: ['load average 3.50 at start, the previous job\'s 1 aside (>= 1 beside it)'],
      note: 'tag haswell: speeds of 3 of its 10 newest documents left out of change detection',
    },
    { tag: 'arm64', excluded_documents: 1, recent_documents: 1, reasons: [], note: 'tag arm64: ...' },
  ],
};

describe('speedExclusions', () => {
  it('lists every tag whose speeds detection left out, or the filtered one', () => {
    expect(speedExclusions(HEALTH).map((e) => e.tag)).toEqual(['haswell', 'arm64']);
    expect(speedExclusions(HEALTH, 'haswell')).toHaveLength(1);
    expect(speedExclusions(HEALTH, 'haswell')[0]?.reasons[0]).toContain('load average 3.50');
    expect(speedExclusions(HEALTH, 'epyc')).toEqual([]);
  });

  it('says nothing while /health has not answered or the database is away', () => {
    expect(speedExclusions(undefined)).toEqual([]);
    expect(speedExclusions({ ...HEALTH, speed_exclusions: null })).toEqual([]);
  });
});
