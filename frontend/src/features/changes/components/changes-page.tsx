import { CheckField, DeferredTextField, PageHeader, SelectField, TextField } from '@/components/ui/field';
import { Pager } from '@/components/ui/pager';
import { SpeedExclusionNotes } from '@/components/speed-exclusions';
import { EmptyState, QueryView } from '@/components/ui/states';
import { METRIC_LABELS } from '@/lib/format';
import { SUMMARY_PAGE } from '../api/get-change-summary';
import { useChangesData } from '../hooks/use-changes-data';
import { groupLines } from '../utils/group';
import { CommitCard } from './commit-card';

const STATUSES = ['open', 'acknowledged', 'fixed', 'ignored'];
const CODECS = ['zlib', 'lzma', 'lz4', 'zstd', 'memcpy'];

export function ChangesPage() {
  const { state, set, token, setToken, dims, filter, summary } = useChangesData();
  const tags = dims.data?.tags ?? [];
  const pick = (patch: Partial<typeof state>) => set({ ...patch, offset: 0 });
  return (
    <>
      <PageHeader title="Changes">
        Confirmed changes, newest commit first, one line per commit and cause: sizes are exact, speeds are confirmed by interleaved reruns and
        controlled for false discoveries across all series of a commit. Expand a line for its rows.
      </PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="changes filter">
        <SelectField name="status" label="Status" value={state.status} options={[...STATUSES, 'any'].map((s) => ({ value: s }))} onChange={(v) => pick({ status: v })} />
        <SelectField name="direction" label="Direction" value={state.direction} allowEmpty="both" options={[{ value: 'regression' }, { value: 'improvement' }]} onChange={(v) => pick({ direction: v })} />
        <SelectField name="tag" label="Tag" value={state.tag} allowEmpty="all" options={tags.map((t) => ({ value: t }))} onChange={(v) => pick({ tag: v })} />
        <SelectField name="dataset" label="Dataset" value={state.dataset} allowEmpty="all" options={(dims.data?.datasets ?? []).map((v) => ({ value: v }))} onChange={(v) => pick({ dataset: v })} />
        <SelectField name="codec" label="Codec" value={state.codec} allowEmpty="all" options={CODECS.map((v) => ({ value: v }))} onChange={(v) => pick({ codec: v })} />
        <DeferredTextField name="setting" label="Setting" value={state.setting} placeholder="e.g. 505" onCommit={(v) => pick({ setting: v })} />
        <SelectField name="metric" label="Metric" value={state.metric} allowEmpty="all" options={Object.entries(METRIC_LABELS).map(([value, label]) => ({ value, label }))} onChange={(v) => pick({ metric: v })} />
        <CheckField name="all" label="also unconfirmed" checked={state.all} onChange={(v) => pick({ all: v })} />
        <TextField name="token" label="Token (status changes)" value={token} onChange={setToken} />
      </form>
      <SpeedExclusionNotes tag={state.tag || undefined} />
      <QueryView query={summary} loadingLabel="Loading changes…">
        {(page) => {
          const groups = groupLines(page.items);
          return groups.length === 0 ? (
            <EmptyState>No changes with these filters: nothing moved, or everything is handled.</EmptyState>
          ) : (
            <div data-testid="changes-inbox">
              <Pager testId="changes-pager" offset={page.offset} count={page.items.length} total={page.total} onPage={(d) => set({ offset: Math.max(0, page.offset + d * SUMMARY_PAGE) })} />
              <p className="muted" data-testid="changes-total">
                {page.changes} changes in {page.total} lines
              </p>
              {groups.map((g) => (
                <CommitCard key={g.key} group={g} filter={filter} token={token} />
              ))}
            </div>
          );
        }}
      </QueryView>
    </>
  );
}
