import { Link } from 'react-router';
import { useDimensions } from '@/api/get-dimensions';
import { DataTable, type Column } from '@/components/ui/data-table';
import { PageHeader, SelectField } from '@/components/ui/field';
import { Pager } from '@/components/ui/pager';
import { CommitSelect } from '@/components/ui/commit-select';
import { EmptyState, NO_RESULTS_HINT, QueryView } from '@/components/ui/states';
import { fmtBytes, fmtNumber, settingLabel, shortSha } from '@/lib/format';
import { num, str, useUrlState } from '@/lib/url-state';
import type { LatestRow } from '@/types/api';
import { latestCsvUrl, useLatest, type LatestParams } from '../api/get-latest';

const configurationsSchema = {
  setting: str(),
  pre: str(),
  dict: str(),
  basket: str(),
  mode: str(),
  threads: str(),
  dataset: str(),
  machine: str(),
  tag: str(),
  /** numbers at or before this commit (the trade-off page's "Table view" pins it) */
  commit: str(),
  sort: str('configuration'),
  page: num(0),
};
const PAGE_SIZE = 100;
const machineLabel = (r: LatestRow) => (r.machine.version > 1 ? `${r.machine.name}@v${r.machine.version}` : r.machine.name);

export function ConfigurationsPage() {
  const [state, set] = useUrlState(configurationsSchema);
  const dims = useDimensions();
  const params: LatestParams = {
    setting: state.setting || undefined,
    preconditioner: state.pre || undefined,
    dictionary_size: state.dict || undefined,
    basket_size: state.basket || undefined,
    mode: state.mode || undefined,
    threads: state.threads || undefined,
    dataset: state.dataset || undefined,
    machine: state.machine || undefined,
    tag: state.tag || undefined,
    commit_to: state.commit || undefined,
    sort: state.sort,
    limit: PAGE_SIZE,
    offset: state.page * PAGE_SIZE,
  };
  const latest = useLatest(params);
  const filtered = [state.setting, state.pre, state.dict, state.basket, state.mode, state.threads, state.dataset, state.machine, state.tag, state.commit].some(Boolean);
  const d = dims.data;
  const o = (vals: readonly (string | number)[] | undefined) => (vals ?? []).map((v) => ({ value: String(v) }));
  const filter = (patch: Partial<typeof state>) => set({ ...patch, page: 0 });

  const columns: Column<LatestRow>[] = [
    { key: 'configuration', header: 'configuration', value: (r) => r.configuration.label },
    { key: 'setting', header: 'setting', value: (r) => r.configuration.setting, numeric: true, optional: true },
    { key: 'preconditioner', header: 'precond.', value: (r) => r.configuration.preconditioner, optional: true },
    { key: 'dictionary_size', header: 'dict', value: (r) => r.configuration.dictionary_size, numeric: true, optional: true },
    { key: 'basket_size', header: 'basket', value: (r) => r.configuration.basket_size, numeric: true, optional: true },
    { key: 'mode', header: 'mode', value: (r) => r.configuration.mode, optional: true },
    { key: 'threads', header: 'threads', value: (r) => r.configuration.threads, numeric: true, optional: true },
    { key: 'dataset', header: 'dataset', value: (r) => r.dataset },
    { key: 'machine', header: 'machine', value: (r) => machineLabel(r) },
    {
      key: 'commit',
      header: 'commit',
      optional: true,
      value: (r) => r.commit,
      render: (r) => (
        <Link to={`/tradeoffs?commit=${r.commit}&machine=${encodeURIComponent(machineLabel(r))}&dataset=${encodeURIComponent(r.dataset)}`}>
          <code>{shortSha(r.commit)}</code>
        </Link>
      ),
    },
    { key: 'ratio', header: 'ratio', value: (r) => r.ratio, render: (r) => fmtNumber(r.ratio), numeric: true },
    { key: 'compressed_bytes', header: 'size', value: (r) => r.compressed_bytes, render: (r) => fmtBytes(r.compressed_bytes), numeric: true, optional: true },
    { key: 'compress_mbps', header: 'compress MB/s', value: (r) => r.compress_mbps, render: (r) => fmtNumber(r.compress_mbps), numeric: true },
    { key: 'decompress_mbps', header: 'decompress MB/s', value: (r) => r.decompress_mbps, render: (r) => fmtNumber(r.decompress_mbps), numeric: true },
  ];

  return (
    <>
      <PageHeader title="Configurations">
        Every measured configuration with its latest numbers per dataset and machine.{' '}
        <a href={latestCsvUrl(params)} download data-testid="csv-export">Export CSV</a>
      </PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="configuration filters">
        <SelectField name="setting" label="Setting" value={state.setting} allowEmpty="all"
          options={(d?.settings ?? []).map((s) => ({ value: String(s), label: `${settingLabel(s)} (${s})` }))} onChange={(v) => filter({ setting: v })} />
        <SelectField name="dataset" label="Dataset" value={state.dataset} allowEmpty="all" options={o(d?.datasets)} onChange={(v) => filter({ dataset: v })} />
        <SelectField name="machine" label="Machine" value={state.machine} allowEmpty="all" options={o(d?.machines)} onChange={(v) => filter({ machine: v })} />
        <SelectField name="tag" label="Tag" value={state.tag} allowEmpty="all" options={o(d?.tags)} onChange={(v) => filter({ tag: v })} />
        <SelectField name="pre" label="Preconditioner" value={state.pre} allowEmpty="all" options={o(d?.preconditioners)} onChange={(v) => filter({ pre: v })} />
        <SelectField name="dict" label="Dictionary" value={state.dict} allowEmpty="all" options={o(d?.dictionary_sizes)} onChange={(v) => filter({ dict: v })} />
        <SelectField name="basket" label="Basket size" value={state.basket} allowEmpty="all" options={o(d?.basket_sizes)} onChange={(v) => filter({ basket: v })} />
        <SelectField name="mode" label="Mode" value={state.mode} allowEmpty="all" options={o(d?.modes)} onChange={(v) => filter({ mode: v })} />
        <SelectField name="threads" label="Threads" value={state.threads} allowEmpty="all" options={o(d?.threads)} onChange={(v) => filter({ threads: v })} />
        <CommitSelect name="commit" label="At or before commit" value={state.commit} onChange={(v) => filter({ commit: v })} />
        {state.commit && <button type="button" className="btn btn-small" onClick={() => filter({ commit: '' })}>newest</button>}
      </form>
      <QueryView query={latest} loadingLabel="Loading configurations…">
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState>{page.total === 0 && state.page === 0 && !filtered ? NO_RESULTS_HINT : 'No configuration matches these filters: clear some of them.'}</EmptyState>
          ) : (
            <>
              <Pager testId="latest-count" offset={page.offset} count={page.items.length} total={page.total}
                onPage={(d) => set({ page: state.page + d })} />
              <DataTable testId="configurations-table" columns={columns} rows={page.items} sort={state.sort} serverSorted
                onSort={(sort) => set({ sort, page: 0 }, { replace: true })}
                rowKey={(r) => `${r.configuration.id}|${r.dataset}|${r.machine.id}`} />
            </>
          )
        }
      </QueryView>
    </>
  );
}
