// Shared by several features (selectors everywhere): distinct dimension values.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import type { Dimensions, MachineRef } from '@/types/api';

/** Dimensions with machines as the strings the API accepts as `machine=`. */
export type DimensionsView = Omit<Dimensions, 'machines' | 'synthetic_datasets' | 'dataset_kinds'> & {
  machines: string[];
  machineRefs: MachineRef[];
  /** generated data sets (the rest are baskets of real ROOT files) */
  synthetic_datasets: string[];
  /** the datasets whose harness reported a kind (TTree / RNTuple, page size) */
  dataset_kinds: NonNullable<Dimensions['dataset_kinds']>;
};

/**
 * How a machine is named in URLs and API filters: its name, or name@vN when
 * several fingerprint versions of that name exist (the API resolves both).
 */
export function machineRefString(m: MachineRef, all: readonly MachineRef[]): string {
  const versions = all.filter((x) => x.name === m.name).length;
  return versions > 1 ? `${m.name}@v${m.version}` : m.name;
}

export function toView(d: Dimensions): DimensionsView {
  const refs = [...d.machines].sort((a, b) => a.name.localeCompare(b.name) || b.version - a.version);
  const num = (xs: number[]) => [...xs].sort((a, b) => a - b);
  return {
    ...d,
    settings: num(d.settings),
    threads: num(d.threads),
    basket_sizes: num(d.basket_sizes),
    dictionary_sizes: num(d.dictionary_sizes),
    machines: refs.map((m) => machineRefString(m, refs)),
    machineRefs: refs,
    synthetic_datasets: d.synthetic_datasets ?? [],
    dataset_kinds: d.dataset_kinds ?? {},
  };
}

export const getDimensions = (): Promise<Dimensions> => apiRequest<Dimensions>('/configurations/dimensions');

export const getDimensionsQueryOptions = () =>
  queryOptions({ queryKey: ['dimensions'], queryFn: getDimensions, staleTime: 5 * 60_000, select: toView });

export const useDimensions = () => useQuery(getDimensionsQueryOptions());
