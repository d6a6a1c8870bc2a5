// From the page's URL state to the requests it makes, and from the answers to plotted series.
import type { TradeoffParams } from '@/api/get-tradeoff';
import type { StateOf } from '@/lib/url-state';
import type { Tradeoff } from '@/types/api';
import type { tradeoffSchema } from '../components/tradeoff-state';
import { relativeTo, speedAxis, toPlotPoint } from './relative';
import type { MachineSeries } from './traces';

type State = StateOf<typeof tradeoffSchema>;

export function paramsFor(state: State, commit: string, machine: string, dataset = state.dataset): TradeoffParams {
  return {
    commit,
    machine,
    dataset,
    preconditioner: state.pre,
    dictionary_size: state.dict,
    basket_size: state.basket,
    mode: state.mode,
    threads: state.threads,
    codecs: state.codecs || undefined,
  };
}

export function seriesOf(t: Tradeoff, machine: string, state: State): MachineSeries & { missingReference: boolean } {
  const axis = speedAxis(state.axis);
  const points = t.points.map((p) => toPlotPoint(p, axis));
  const codecs = t.codecs ?? null;
  if (!state.rel) return { machine, points, codecs, missingReference: false };
  const rel = relativeTo(points, state.ref);
  return { machine, points: rel.points, codecs, missingReference: !rel.referenceFound };
}

/** memcpy (ratio 1, very fast) is left out unless asked for: it squeezes the codecs' range. */
export function shownSeries(series: MachineSeries[], memcpy: boolean): MachineSeries[] {
  return memcpy ? series : series.map((s) => ({ ...s, points: s.points.filter((p) => p.algorithm !== 0) }));
}
