// One POST /recommend/groups carries at most MAX_GROUP_WORK = sizes + GROUP_WEIGHT x groups
// (backend/basketbench/recommend/schemas.py; tests/backend/recommend checks the two agree).
// A file with thousands of branches (PHYSLITE: ~2 000) does not fit one request: the page
// ranks the largest branches that fit and says how much of the file the rest hold.
import type { GroupSizes } from '@/types/api';

export const GROUP_WEIGHT = 8;
export const MAX_GROUP_WORK = 10_000;

export interface GroupBudget {
  /** the groups sent, largest (uncompressed) first */
  ranked: GroupSizes[];
  /** how many groups were left out, and their share of the file's uncompressed bytes */
  leftOut: number;
  leftOutShare: number;
}

/** The largest groups whose sizes and count fit one request; all of them when they fit. */
export function withinBudget(groups: GroupSizes[]): GroupBudget {
  const work = (g: GroupSizes) => g.sizes.length + GROUP_WEIGHT;
  if (groups.reduce((s, g) => s + work(g), 0) <= MAX_GROUP_WORK) return { ranked: groups, leftOut: 0, leftOutShare: 0 };
  const bySize = [...groups].sort((a, b) => b.raw_bytes - a.raw_bytes);
  const ranked: GroupSizes[] = [];
  let used = 0;
  for (const g of bySize) {
    if (used + work(g) > MAX_GROUP_WORK) break;
    ranked.push(g);
    used += work(g);
  }
  const total = groups.reduce((s, g) => s + g.raw_bytes, 0);
  const leftBytes = bySize.slice(ranked.length).reduce((s, g) => s + g.raw_bytes, 0);
  return { ranked, leftOut: groups.length - ranked.length, leftOutShare: total > 0 ? leftBytes / total : 0 };
}
