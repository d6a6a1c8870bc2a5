import type { Health, SpeedExclusion } from '@/types/api';

/** The tags whose speeds change detection left out, optionally of one tag only (a filter). */
export function speedExclusions(health: Health | undefined, tag?: string): SpeedExclusion[] {
  const all = health?.speed_exclusions ?? [];
  return tag ? all.filter((e) => e.tag === tag) : all;
}
