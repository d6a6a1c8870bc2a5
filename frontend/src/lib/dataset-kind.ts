import type { Dimensions } from '@/types/api';

type Kinds = Readonly<NonNullable<Dimensions['dataset_kinds']>>;

function pageSize(bytes: number): string {
  return bytes % 1024 === 0 ? (bytes >= 1 << 20 && bytes % (1 << 20) === 0 ? `${bytes / (1 << 20)} MiB` : `${bytes / 1024} KiB`) : `${bytes} B`;
}

/**
 * What a dataset holds, for badges and pickers: synthetic data, TTree baskets or RNTuple pages
 * (with a re-paged dataset's page size), from the harness's reported kind.
 */
export function datasetKindLabel(name: string, synthetic: readonly string[], kinds: Kinds): string {
  if (synthetic.includes(name)) return 'synthetic data';
  const k = kinds[name];
  if (!k) return 'real ROOT baskets';
  if (k.kind === 'synthetic') return 'synthetic data';
  if (k.kind === 'rntuple') return k.page_size ? `RNTuple pages, ${pageSize(k.page_size)}` : 'RNTuple pages';
  if (k.kind === 'mixed') return 'TTree baskets + RNTuple pages';
  return 'TTree baskets';
}
