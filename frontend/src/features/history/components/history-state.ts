import { list, num, str } from '@/lib/url-state';

export const historySchema = {
  s: list(),
  pre: str('none'),
  dict: num(0),
  basket: num(0),
  threads: num(1),
  mode: str('basket'),
  from: str(),
  to: str(),
  max: num(2000),
  /** x range shared by every metric's plot: "lo~hi" in commit order */
  x: str(),
  /** the x axis reads commit dates ('date') or short shas ('sha') */
  xlabels: str('date'),
  /** codec series: '' = every series, each its own line; else a set name or series key */
  codecs: str(),
};
