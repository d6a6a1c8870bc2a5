// The evidence behind the speed rows, and how to get it: which interleaved A/B backs them (when,
// how disturbed), whether either side's run was made on a busy machine, and a button that queues
// an interleaved A/B of the two commits on a worker of the machine's tag (POST /ab-requests, a
// token of scope `user`), followed until its result lands and the comparison shows it.
import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { TextField } from '@/components/ui/field';
import { ErrorState } from '@/components/ui/states';
import { fmtDate } from '@/lib/format';
import { loadToken, saveToken, tokenRemembered } from '@/lib/token-storage';
import type { Compare } from '@/types/api';
import { isPending, useAbRequests, useQueueAb } from '../api/ab-requests';

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const loads = (xs: number[] | null | undefined) => (xs && xs.length ? xs.map((x) => x.toFixed(1)).join(' / ') : '—');

/** Busy flags of the two sides (their documents' load): why their speeds say little. */
function BusyContext({ data }: { data: Compare }) {
  const busy = [
    ['base', data.base.busy],
    ['head', data.head.busy],
  ] as const;
  const flagged = busy.filter(([, b]) => b === true).map(([side]) => side);
  const unknown = busy.filter(([, b]) => b === null || b === undefined).map(([side]) => side);
  return (
    <p className="muted" data-testid="compare-busy">
      {flagged.length > 0
        ? `Measured on a busy machine: ${flagged.join(' and ')} (load average at the start of the run); its speeds vary with the load.`
        : 'Neither side was flagged busy when measured.'}
      {unknown.length > 0 && ` Load not recorded for ${unknown.join(' and ')}.`} Separate runs still differ by the time they were measured: only an
      interleaved A/B or instruction counts back a speed verdict.
    </p>
  );
}

export function AbPanel({ data, machine, base, head }: { data: Compare; machine: string; base: string; head: string }) {
  const queryClient = useQueryClient();
  const requests = useAbRequests(machine, base, head);
  const queue = useQueueAb();
  const [token, setToken] = useState(loadToken);
  const [problem, setProblem] = useState('');
  const latest = requests.data?.items[0];
  const ab = data.ab;
  const tally = data.rule?.evidence;

  // The A/B landed (its run uploaded a document): fetch the comparison again, which now uses it.
  const landed = latest?.ab_run_id ?? null;
  useEffect(() => {
    if (landed !== null && ab?.ab_run_id !== landed) void queryClient.invalidateQueries({ queryKey: ['compare'] });
  }, [landed, ab?.ab_run_id, queryClient]);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setProblem('');
    if (!token) return setProblem('A token is needed to queue an A/B (scope user): create one with `basketbench token create` and enter it here.');
    saveToken(token, tokenRemembered());
    queue.mutate({ body: { base_commit: base, head_commit: head, machine }, token });
  };

  return (
    <section className="card" data-testid="compare-evidence">
      <h2>Speed evidence</h2>
      {tally && (
        <p data-testid="evidence-tally">
          Speed rows: {tally.ab} backed by an interleaved A/B, {tally.counts} by instruction counts, {tally.none} without evidence (no verdict).
        </p>
      )}
      {ab ? (
        <p data-testid="compare-ab">
          Interleaved A/B #{ab.ab_run_id} of these two commits on {machine}
          {ab.measured_at ? `, measured ${fmtDate(ab.measured_at)}` : ''} ({ab.origin}, {Math.round(100 * ab.confidence)} % intervals
          {ab.interval ? `: ${ab.interval}` : ''}): {ab.disturbed_fraction === null || ab.disturbed_fraction === undefined ? 'interference not recorded' : `${pct(ab.disturbed_fraction)} of its pairs disturbed`}
          {ab.disturbed_rule ? ` (${ab.disturbed_rule})` : ''}; load average {loads(ab.loadavg_start)} at the start, {loads(ab.loadavg_end)} at the end.
        </p>
      ) : (
        <p data-testid="compare-no-ab">No interleaved A/B of these two commits on {machine} yet.</p>
      )}
      <BusyContext data={data} />
      {latest && (
        <p data-testid="ab-request" data-status={latest.status}>
          A/B run #{latest.run_id} on tag {latest.tag}: {latest.status}
          {latest.status === 'running' && latest.stage ? ` (${latest.stage}, ${Math.round(100 * latest.progress)} %)` : ''}
          {isPending(latest) && ' — this page follows it and shows the result when it lands.'}
          {latest.status === 'succeeded' && latest.ab_run_id === null && ' but uploaded no A/B document: see its log on the Runs page.'}
          {latest.ab_run_id !== null && latest.measured_on && latest.measured_on !== machine && ` Measured on ${latest.measured_on}, not ${machine}: it backs that machine's comparisons.`}
          {(latest.status === 'failed' || latest.status === 'cancelled') && ' See its log on the Runs page.'}
        </p>
      )}
      {requests.error && <ErrorState error={requests.error} retry={() => void requests.refetch()} />}
      <form className="controls" onSubmit={submit} aria-label="queue an interleaved A/B">
        <TextField name="ab-token" label="Token" type="password" value={token} onChange={setToken} />
        <button type="submit" className="btn btn-primary" data-testid="queue-ab" disabled={queue.isPending || isPending(latest)}>
          {ab ? 'Measure the A/B again' : 'Queue an interleaved A/B'}
        </button>
        <span className="muted">of head against base on a worker of {machine}&apos;s tag: both builds in one process, alternating, so load and neighbours hit both alike.</span>
      </form>
      {problem && (
        <div role="alert" className="error" data-testid="ab-token-needed">
          {problem}
        </div>
      )}
      {queue.error && <ErrorState error={queue.error} />}
    </section>
  );
}
