import type { CostModel } from '@/types/api';
import { num, str, type StateOf } from '@/lib/url-state';
import { DEFAULT_MODEL } from '../utils/candidates';

// URL state of the Recommend page: where the measured settings come from and the cost model,
// so a reload or a shared link ranks the same settings under the same costs. An advise
// --json file read from disk stays in the page (it is never uploaded): its cost model goes
// into the URL, its settings cannot.
export const recommendSchema = {
  machine: str(),
  dataset: str(),
  /** an advise run whose stored advice is ranked instead of the tracker's results; 0 = none */
  advise: num(0),
  /** the currency the prices are given in (a label: costs are not converted) */
  currency: str('USD'),
  // the cost model, named as the API names it (and as the sliders are)
  storage_per_tb_month: num(DEFAULT_MODEL.storage_per_tb_month),
  months: num(DEFAULT_MODEL.months),
  cpu_per_core_hour: num(DEFAULT_MODEL.cpu_per_core_hour),
  reads_per_file: num(DEFAULT_MODEL.reads_per_file),
  writes_per_file: num(DEFAULT_MODEL.writes_per_file),
  network_mb_per_s: num(DEFAULT_MODEL.network_mb_per_s),
};

export type RecommendState = StateOf<typeof recommendSchema>;

const MODEL_KEYS = Object.keys(DEFAULT_MODEL) as (keyof CostModel)[];

/** The cost model the URL holds. */
export function modelOf(state: RecommendState): CostModel {
  return Object.fromEntries(MODEL_KEYS.map((k) => [k, state[k]])) as unknown as CostModel;
}

/** The URL patch for a (partial) cost model: only its parameters, nothing else. */
export function modelPatch(model: Partial<CostModel>): Partial<RecommendState> {
  return Object.fromEntries(MODEL_KEYS.flatMap((k) => (typeof model[k] === 'number' ? [[k, model[k]]] : []))) as Partial<RecommendState>;
}
