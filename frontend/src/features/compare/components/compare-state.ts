import { bool, str } from '@/lib/url-state';

export const compareSchema = {
  kind: str('commits'),
  base: str(),
  head: str(),
  machine: str(),
  commit: str(),
  dataset: str(),
  metric: str(),
  setting: str(),
  sort: str('delta_pct'),
  only: bool(false),
  /** codec series of both sides: a set name or series key; '' = the newest both have */
  codecs: str(),
};
