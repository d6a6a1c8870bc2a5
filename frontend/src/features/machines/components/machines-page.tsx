import { Link } from 'react-router';
import { DataTable, type Column } from '@/components/ui/data-table';
import { PageHeader, SelectField } from '@/components/ui/field';
import { EmptyState, QueryView } from '@/components/ui/states';
import { fmtAge, fmtDate, shortSha } from '@/lib/format';
import { str, useUrlState } from '@/lib/url-state';
import type { Machine } from '@/types/api';
import { useMachines } from '../api/get-machines';
import { MachineCodecSets } from './machine-codec-sets';

const machinesSchema = { tag: str(), sort: str('name') };

function summary(fp: Record<string, unknown>): string {
  const pick = ['cpu_model', 'arch', 'kernel', 'compiler'].map((k) => fp[k]).filter((v) => typeof v === 'string');
  return pick.join(' · ');
}

export function MachinesPage() {
  const [state, set] = useUrlState(machinesSchema);
  const machines = useMachines({ tag: state.tag || undefined });
  const columns: Column<Machine>[] = [
    { key: 'name', header: 'name', value: (m) => m.name },
    { key: 'tag', header: 'tag', value: (m) => m.tag },
    { key: 'version', header: 'version', value: (m) => m.version, numeric: true },
    {
      key: 'fingerprint',
      header: 'fingerprint',
      value: (m) => m.fingerprint_hash,
      render: (m) => (
        <details>
          <summary>
            <code>{m.fingerprint_hash.slice(0, 12)}</code> {summary(m.fingerprint)}
          </summary>
          <pre className="log-tail">{JSON.stringify(m.fingerprint, null, 2)}</pre>
        </details>
      ),
    },
    { key: 'registered_at', header: 'registered', value: (m) => m.registered_at, render: (m) => fmtDate(m.registered_at) },
    {
      key: 'last_heartbeat',
      header: 'last heartbeat',
      value: (m) => m.last_heartbeat,
      render: (m) =>
        m.last_heartbeat ? (
          <span title={fmtDate(m.last_heartbeat)}>{fmtAge(m.last_heartbeat)}</span>
        ) : (
          <span className="muted" title="no worker has reported from this machine: its results were uploaded">
            no worker (uploads)
          </span>
        ),
    },
    {
      key: 'active',
      header: 'current version',
      value: (m) => m.active,
      render: (m) => <span title="a changed fingerprint makes a new version; older ones keep their results">{m.active ? 'yes' : 'no (superseded)'}</span>,
    },
    {
      key: 'result_count',
      header: 'results',
      value: (m) => m.result_count,
      numeric: true,
      render: (m) => <Link to={`/configurations?machine=${encodeURIComponent(m.name)}`}>{m.result_count}</Link>,
    },
    { key: 'codecs', header: 'codecs', value: (m) => m.id, render: (m) => <MachineCodecSets machineId={m.id} /> },
    {
      key: 'latest_commit',
      header: 'latest commit',
      value: (m) => m.latest_commit,
      render: (m) =>
        m.latest_commit ? (
          <Link to={`/tradeoffs?commit=${m.latest_commit}&machine=${encodeURIComponent(m.name)}`}>
            <code>{shortSha(m.latest_commit)}</code>
          </Link>
        ) : (
          '—'
        ),
    },
  ];
  return (
    <>
      <PageHeader title="Machines">
        Each machine is a hardware tag plus a fingerprint; a changed fingerprint is a new version, never merged into the old series.
      </PageHeader>
      <QueryView query={machines} loadingLabel="Loading machines…">
        {(page) => {
          const tags = [...new Set(page.items.map((m) => m.tag))].sort();
          return (
            <>
              <form className="controls" onSubmit={(e) => e.preventDefault()}>
                <SelectField name="tag" label="Tag" value={state.tag} allowEmpty="all" options={tags.map((t) => ({ value: t }))} onChange={(v) => set({ tag: v })} />
              </form>
              {page.items.length === 0 ? (
                <EmptyState>
                  No machines registered: start a worker with <code>basketbench worker --tag &lt;tag&gt;</code>, or run{' '}
                  <code>make demo</code>.
                </EmptyState>
              ) : (
                <DataTable testId="machines-table" columns={columns} rows={page.items} sort={state.sort}
                  onSort={(sort) => set({ sort }, { replace: true })} rowKey={(m) => String(m.id)} />
              )}
            </>
          );
        }}
      </QueryView>
    </>
  );
}
