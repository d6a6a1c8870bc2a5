import { bool, list, num, str } from '@/lib/url-state';

// URL state of the trade-off page (short keys keep shared links readable).
export const tradeoffSchema = {
  commit: str(),
  machine: list(),
  dataset: str(),
  pre: str('none'),
  dict: num(0),
  basket: num(0),
  threads: num(1),
  mode: str('basket'),
  rel: bool(false),
  ref: num(505),
  base_commit: str(),
  base_machine: str(),
  /** another dataset as the baseline, e.g. the RNTuple form of a TTree dataset */
  base_dataset: str(),
  /** show memcpy (ratio 1, very fast): off by default, it squeezes the codecs' range */
  memcpy: bool(false),
  /** the speed axis: 'mbps' (timed) or 'instructions' (per uncompressed MB, counted under valgrind) */
  axis: str('mbps'),
  /** codec series: a set name or series key; '' = the newest series of the commit */
  codecs: str(),
  /** zoom of each panel ("lo~hi"; y in log10 of the speed, as Plotly's log axes): compress, decompress */
  cx: str(),
  cy: str(),
  dx: str(),
  dy: str(),
};
