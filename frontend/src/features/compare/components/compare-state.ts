import { bool, num, str } from '@/lib/url-state';

export const compareSchema = {
  kind: str('commits'),
  base: str(),
  head: str(),
  machine: str(),
  commit: str(),
  dataset: str(),
  metric: str(),
  setting: str(),
  /** '' = the server's order: decided changes first; a column sorts the page shown */
  sort: str(''),
  /** first row of the page (server paging) */
  offset: num(0),
  only: bool(false),
  /** codec series of both sides: a set name or series key; '' = the newest both have */
  codecs: str(),
};
