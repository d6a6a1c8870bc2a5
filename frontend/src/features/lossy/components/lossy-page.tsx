import { useEffect, useMemo } from 'react';
import { PageHeader, SelectField } from '@/components/ui/field';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { fmtNumber, settingLabel, shortSha } from '@/lib/format';
import { Plot } from '@/lib/plot';
import { plotText } from '@/lib/plot-text';
import { num, str, useUrlState } from '@/lib/url-state';
import { useLossyColumns, useLossyHistory, useLossySweeps } from '../api/get-lossy';
import { columnPoints, frontier, label, tradeoffTraces } from '../utils/lossy-traces';

const lossySchema = { sweep: num(0), setting: num(0), column: str(), rep: str() };

const opts = (values: readonly (string | number)[], text?: (v: string) => string) =>
  values.map((v) => ({ value: String(v), label: text ? text(String(v)) : String(v) }));

function parseRep(rep: string): { representation: string; bits: number } | null {
  const m = /^(full|half|trunc|quant)(\d*)$/.exec(rep);
  if (!m) return null;
  const fixed: Record<string, number> = { full: 32, half: 16 };
  return { representation: m[1]!, bits: m[2] ? Number(m[2]) : (fixed[m[1]!] ?? 0) };
}

export function LossyPage() {
  const [state, set] = useUrlState(lossySchema);
  const sweeps = useLossySweeps();
  const list = useMemo(() => sweeps.data?.sweeps ?? [], [sweeps.data]);
  const sweep = list.find((s) => s.id === state.sweep);

  useEffect(() => {
    if (!state.sweep && list[0]) set({ sweep: list[0].id }, { replace: true });
  }, [list, state.sweep, set]);

  const cols = useLossyColumns({
    sweep: state.sweep,
    setting: state.setting || undefined,
    column: state.column || undefined,
  });
  const data = cols.data;
  const column = state.column || data?.columns[0] || '';
  const points = useMemo(() => (data ? columnPoints(data.points, column) : []), [data, column]);
  const best = useMemo(() => new Set(frontier(points).map(label)), [points]);
  const rep = state.rep || 'trunc16';
  const parsed = parseRep(rep);
  const history = useLossyHistory(
    data && sweep && column && parsed
      ? { file: sweep.file, column, ...parsed, setting: data.setting }
      : null,
  );

  if (sweeps.isPending) return <Spinner label="Loading lossy sweeps…" />;
  if (sweeps.error) return <ErrorState error={sweeps.error} retry={() => void sweeps.refetch()} />;
  if (list.length === 0) {
    return (
      <>
        <PageHeader title="Lossy floats" />
        <EmptyState>
          No lossy sweeps yet: run <code>basketbench lossy FILE.root --json sweep.json</code> and upload it
          (POST /api/v1/lossy-sweeps), or run <code>make demo</code>.
        </EmptyState>
      </>
    );
  }
  const subtitle = sweep ? `${plotText(sweep.file)} · ${shortSha(sweep.commit)} · codecs ${plotText(sweep.codecs)}` : '';
  return (
    <>
      <PageHeader title="Lossy floats">
        How many bits can each float column lose? RNTuple's truncated (trunc), quantized (quant) and half-precision floats,
        per column: the bytes at a setting against the largest relative error of the values read back (basketbench lossy;
        sizes are exact, ROOT's framing included).
      </PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="lossy sweep selection">
        <SelectField
          name="sweep"
          label="Sweep (file · commit)"
          value={String(state.sweep)}
          options={list.map((s) => ({ value: String(s.id), label: `${s.file} · ${shortSha(s.commit)} · ${s.codecs}` }))}
          onChange={(v) => set({ sweep: Number(v), column: '', setting: 0 })}
        />
        <SelectField
          name="setting"
          label="Setting"
          value={String(data?.setting ?? state.setting)}
          options={opts(sweep?.settings ?? [], (v) => settingLabel(Number(v)))}
          onChange={(v) => set({ setting: Number(v) })}
        />
        <SelectField name="column" label="Column" value={column} options={opts(data?.columns ?? [])} onChange={(v) => set({ column: v })} />
        <SelectField
          name="rep"
          label="History of"
          value={rep}
          options={opts(points.filter((p) => p.representation !== 'full').map(label))}
          onChange={(v) => set({ rep: v })}
        />
      </form>
      {cols.error && <ErrorState error={cols.error} retry={() => void cols.refetch()} />}
      {cols.isLoading && <Spinner label="Loading the sweep…" />}
      {data && points.length > 0 && (
        <>
          <Plot
            id="lossy-tradeoff"
            title={`${plotText(column)}: bytes against precision at ${settingLabel(data.setting)}<br><sup>${subtitle}</sup>`}
            data={tradeoffTraces(points)}
            pointCount={points.length}
            filename={`lossy-${column}-${data.setting}`}
            csv={() => ({
              header: ['column', 'representation', 'bits', 'setting', 'compressed_bytes', 'saved_pct', 'max_abs_error', 'max_rel_error', 'rms_rel_error'],
              rows: points.map((p) => [p.column, p.representation, p.bits, data.setting, p.compressed_bytes, p.saved_pct, p.max_abs_error, p.max_rel_error, p.rms_rel_error]),
            })}
            layout={{
              xaxis: { title: { text: 'largest relative error (exact values drawn at 1e-9)' }, type: 'log' as const, exponentformat: 'power' as const },
              yaxis: { title: { text: 'compressed bytes' }, rangemode: 'tozero' as const },
            }}
          />
          <table className="table" data-testid="lossy-table">
            <thead>
              <tr>
                <th>representation</th>
                <th>bytes</th>
                <th>saved vs full</th>
                <th>largest relative error</th>
                <th>RMS relative error</th>
                <th>largest absolute error</th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={label(p)} className={best.has(label(p)) ? 'highlight' : undefined}>
                  <td>
                    {label(p)}
                    {best.has(label(p)) ? ' ★' : ''}
                  </td>
                  <td>{p.compressed_bytes.toLocaleString()}</td>
                  <td>{p.saved_pct.toFixed(1)} %</td>
                  <td>{p.max_rel_error.toExponential(1)}</td>
                  <td>{p.rms_rel_error.toExponential(1)}</td>
                  <td>{fmtNumber(p.max_abs_error)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted">★ no other representation of this column is both smaller and more precise.</p>
        </>
      )}
      {data && data.physics.length > 0 && (
        <table className="table" data-testid="lossy-physics">
          <caption>Physics quantities from these columns: distance of their distribution to the exact one</caption>
          <thead>
            <tr>
              <th>quantity</th>
              <th>events</th>
              <th>representation</th>
              <th>Kolmogorov-Smirnov distance</th>
              <th>largest histogram-bin change</th>
            </tr>
          </thead>
          <tbody>
            {data.physics.map((e, i) => (
              <tr key={i}>
                <td>{String(e.quantity)}</td>
                <td>{String(e.events)}</td>
                <td>{label({ representation: String(e.representation), bits: Number(e.bits) })}</td>
                <td>{Number(e.ks_distance).toFixed(4)}</td>
                <td>{(100 * Number(e.max_bin_rel_change)).toFixed(1)} %</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {history.data && history.data.points.length > 0 && (
        <Plot
          id="lossy-history"
          title={`${plotText(column)} at ${rep}, ${settingLabel(history.data.setting)}: bytes over commits<br><sup>${subtitle}</sup>`}
          data={[
            {
              type: 'scatter',
              mode: 'lines+markers',
              name: rep,
              x: history.data.points.map((p) => `${shortSha(p.commit)} (${p.codecs})`),
              y: history.data.points.map((p) => p.compressed_bytes),
              customdata: history.data.points.map((p) => [p.saved_pct, p.max_rel_error]),
              hovertemplate: '%{x}: %{y:,} bytes (%{customdata[0]:.1f} % saved), error %{customdata[1]:.2e}<extra></extra>',
            },
          ]}
          pointCount={history.data.points.length}
          filename={`lossy-history-${column}-${rep}`}
          csv={() => ({
            header: ['commit', 'compressed_bytes', 'saved_pct', 'max_rel_error'],
            rows: history.data.points.map((p) => [p.commit, p.compressed_bytes, p.saved_pct, p.max_rel_error]),
          })}
          layout={{ xaxis: { title: { text: 'commit' }, type: 'category' as const }, yaxis: { title: { text: 'compressed bytes' } } }}
          height={320}
        />
      )}
    </>
  );
}
