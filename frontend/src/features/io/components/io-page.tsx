import { useEffect, useMemo } from 'react';
import { useCommits } from '@/api/get-commits';
import { useDimensions } from '@/api/get-dimensions';
import { CommitSelect } from '@/components/ui/commit-select';
import { PageHeader, SelectField } from '@/components/ui/field';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { ApiError } from '@/lib/api-client';
import { shortSha } from '@/lib/format';
import { Plot } from '@/lib/plot';
import { plotText } from '@/lib/plot-text';
import { num, str, useUrlState } from '@/lib/url-state';
import { useIoBreakdown } from '../api/get-io';
import { choices, scalingTraces, splits, splitTraces, type Direction } from '../utils/io-traces';

const ioSchema = {
  commit: str(),
  machine: str(),
  data: str(),
  form: str('ttree'),
  cache: str('on'),
  page: str('warm'),
  threads: num(1),
  dir: str('read'),
};

const opts = (values: readonly string[], label?: (v: string) => string) =>
  values.map((v) => ({ value: v, label: label ? label(v) : v }));

export function IoPage() {
  const [state, set] = useUrlState(ioSchema);
  const dims = useDimensions();
  const commits = useCommits({ limit: 1 });

  useEffect(() => {
    if (!dims.data || !commits.data) return;
    // No commit in the URL: the API answers for the newest commit with I/O results on the
    // machine (only ROOT releases measure end-to-end I/O, the newest commit often has none).
    const patch: Partial<typeof state> = {};
    if (!state.machine && dims.data.machines[0]) patch.machine = dims.data.machines[0];
    if (Object.keys(patch).length) set(patch, { replace: true });
  }, [dims.data, commits.data, state.machine, set]);

  const q = useIoBreakdown({ commit: state.commit, machine: state.machine, data: state.data || undefined });
  const dir: Direction = state.dir === 'write' ? 'write' : 'read';
  const sel = { form: state.form, cache: state.cache, pageCache: state.page, threads: state.threads };
  const rows = useMemo(() => (q.data ? splits(q.data.settings, sel, dir) : []), [q.data, sel.form, sel.cache, sel.pageCache, sel.threads, dir]); // eslint-disable-line react-hooks/exhaustive-deps -- sel is rebuilt each render from its fields

  if (dims.isPending || commits.isPending) return <Spinner label="Loading dimensions…" />;
  if (dims.error) return <ErrorState error={dims.error} retry={() => void dims.refetch()} />;
  if (commits.error) return <ErrorState error={commits.error} retry={() => void commits.refetch()} />;
  if (dims.data.machines.length === 0) {
    return (
      <>
        <PageHeader title="End-to-end I/O" />
        <EmptyState>{NO_RESULTS_HINT}</EmptyState>
      </>
    );
  }
  const missing = q.error instanceof ApiError && q.error.status === 404;
  const data = q.data;
  const subtitle = data ? `${shortSha(data.commit)} · ${plotText(data.data)} · ${plotText(data.machine.name)} · ${state.form}` : '';
  return (
    <>
      <PageHeader title="End-to-end I/O">
        What a ROOT write or read of a real tree costs per setting (basketbench run --io, modes io-write / io-read), and
        how much of it is the codec alone (rzbench on the same baskets, same release).
      </PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="end-to-end I/O selection">
        <CommitSelect name="commit" label="Commit" value={state.commit || data?.commit || ''} onChange={(v) => set({ commit: v })} />
        <SelectField name="machine" label="Machine" value={state.machine} options={opts(dims.data.machines)} onChange={(v) => set({ machine: v })} />
        <SelectField name="data" label="Data (file/tree)" value={data?.data ?? state.data} options={opts(data?.data_available ?? [])} onChange={(v) => set({ data: v })} />
        <SelectField name="form" label="Form" value={state.form} options={opts(['ttree', 'rntuple'], (v) => (v === 'ttree' ? 'TTree' : 'RNTuple'))} onChange={(v) => set({ form: v })} />
        <SelectField name="dir" label="Bars" value={dir} options={opts(['read', 'write'])} onChange={(v) => set({ dir: v })} />
        <SelectField name="threads" label="Threads (bars)" value={String(state.threads)} options={opts(data ? choices(data.settings, 'threads') : ['1'])} onChange={(v) => set({ threads: Number(v) })} />
        <SelectField name="cache" label="TTreeCache / cluster cache" value={state.cache} options={opts(data ? choices(data.settings, 'cache') : ['on'])} onChange={(v) => set({ cache: v })} />
        <SelectField name="page" label="Page cache" value={state.page} options={opts(data ? choices(data.settings, 'page_cache') : ['warm'])} onChange={(v) => set({ page: v })} />
      </form>
      {missing && <EmptyState>No end-to-end I/O results for this commit and machine: run a suite with an [io] table (suite "io") on a ROOT release, or upload `basketbench run --io` documents.</EmptyState>}
      {q.error && !missing && <ErrorState error={q.error} retry={() => void q.refetch()} />}
      {q.isLoading && <Spinner label="Loading end-to-end I/O…" />}
      {data && rows.length === 0 && <EmptyState>No {state.form} {dir} at {state.threads} thread(s) with these cache states.</EmptyState>}
      {data && rows.length > 0 && (
        <Plot
          id="io-split"
          title={`${dir} time per MB: codec alone vs the rest<br><sup>${subtitle} · ${state.threads} thread(s)${dir === 'read' ? ` · cache ${state.cache} · ${state.page}` : ''}</sup>`}
          data={splitTraces(rows, dir)}
          pointCount={rows.length * 2}
          filename={`io-${dir}-split`}
          csv={() => ({
            header: ['setting', 'label', 'codec_ms_per_mb', 'rest_ms_per_mb', 'codec_share'],
            rows: rows.map((r) => [r.setting, r.label, r.codecMs, r.restMs, r.share]),
          })}
          layout={{ barmode: 'stack', yaxis: { title: { text: 'ms per 10^6 uncompressed bytes' } }, xaxis: { title: { text: 'setting' } } }}
        />
      )}
      {data && (
        <Plot
          id="io-scaling"
          title={`read MB/s with implicit multi-threading<br><sup>${subtitle} · cache ${state.cache} · ${state.page}</sup>`}
          data={scalingTraces(data.settings, sel)}
          pointCount={data.settings.reduce((n, s) => n + s.reads.length, 0)}
          filename="io-read-scaling"
          csv={() => ({
            header: ['setting', 'label', 'form', 'threads', 'cache', 'page_cache', 'read_mbps', 'codec_share'],
            rows: data.settings.flatMap((s) => s.reads.map((r) => [s.setting, s.label, s.form, r.threads, r.cache, r.page_cache, r.read_mbps, r.codec_share ?? null])),
          })}
          layout={{ xaxis: { title: { text: 'threads' }, dtick: 1 }, yaxis: { title: { text: 'read MB/s (uncompressed)' }, rangemode: 'tozero' } }}
        />
      )}
    </>
  );
}
