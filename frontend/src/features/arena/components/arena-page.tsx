import { useEffect, useMemo } from 'react';
import { PageHeader, SelectField } from '@/components/ui/field';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { fmtBytes, fmtDate, fmtNumber, fmtPct, shortSha } from '@/lib/format';
import { Plot } from '@/lib/plot';
import { plotText } from '@/lib/plot-text';
import { str, useUrlState } from '@/lib/url-state';
import type { ArenaResult } from '@/types/api';
import { useArenaBoard, useArenaHistory, useArenaIndex } from '../api/get-arena';
import {
  FAMILIES,
  candidateLabel,
  fmtRatio,
  historyTraces,
  instructionRatio,
  mappingTraces,
  referenceLevel,
  rootSetting,
  scatterTraces,
  switchRows,
  verdict,
  type Direction,
} from '../utils/arena-rows';

// URL state: the board (file, machine), the family shown, the scatter's direction, the row
// whose history is drawn ("view~candidate~level~setting") and the shape filter.
const arenaSchema = { file: str(), machine: str(), family: str(), direction: str('compress'), row: str(), shape: str() };

const rowKey = (view: string, r: ArenaResult) => `${view}~${r.candidate}~${r.level}~${r.reference_setting}`;

function parseRow(key: string): { view: 'candidate' | 'mapping'; candidate: string; level: number; reference_setting: number } | null {
  const [view, candidate, level, setting] = key.split('~');
  if ((view !== 'candidate' && view !== 'mapping') || !candidate || level === undefined || setting === undefined) return null;
  const l = Number(level);
  const s = Number(setting);
  return Number.isFinite(l) && Number.isFinite(s) ? { view, candidate, level: l, reference_setting: s } : null;
}

function Badge({ ok, yes, no, title }: { ok: boolean | null | undefined; yes: string; no: string; title: string }) {
  if (ok === null || ok === undefined) return <span className="badge" title={title}>—</span>;
  return (
    <span className={ok ? 'badge badge-good' : 'badge badge-bad'} title={title}>
      {ok ? yes : no}
    </span>
  );
}

function RatioCell({ ratio }: { ratio: ArenaResult['compress_ratio'] }) {
  const v = verdict(ratio);
  const title = ratio ? `${ratio.pairs} undisturbed pairs, ${ratio.disturbed_pairs} disturbed` : 'not measured';
  return (
    <td title={title} className={v === 1 ? 'cell-good' : v === -1 ? 'cell-bad' : undefined}>
      {fmtRatio(ratio)}
    </td>
  );
}

function SwitchTable({ rows, selected, onSelect }: { rows: ArenaResult[]; selected: string; onSelect: (key: string) => void }) {
  return (
    <table className="table" data-testid="arena-table">
      <caption>Switch ROOT's X to Y: each candidate at its native level against the ROOT setting it would replace (click a row for its history)</caption>
      <thead>
        <tr>
          <th>ROOT's X</th>
          <th>Y</th>
          <th>size change</th>
          <th>compression speed Y/X [95 % CI]</th>
          <th>decompression speed Y/X [95 % CI]</th>
          <th>compression instructions Y/X</th>
          <th>decompression instructions Y/X</th>
          <th>ROOT reads Y</th>
          <th>round trip</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const key = rowKey('candidate', r);
          return (
            <tr key={key} className={key === selected ? 'highlight' : undefined} onClick={() => onSelect(key)} style={{ cursor: 'pointer' }}>
              <td>{rootSetting(r.reference_setting)}</td>
              <td>{candidateLabel(r)}</td>
              <td title={r.compressed_bytes !== null ? `${r.compressed_bytes.toLocaleString()} B against ${r.reference_bytes?.toLocaleString()} B` : (r.error ?? '')}>
                {fmtPct(r.size_change_pct)}
              </td>
              <RatioCell ratio={r.compress_ratio} />
              <RatioCell ratio={r.decompress_ratio} />
              <td>{fmtNumber(instructionRatio(r.compress_instructions, r.reference_compress_instructions))}</td>
              <td>{fmtNumber(instructionRatio(r.decompress_instructions, r.reference_decompress_instructions))}</td>
              <td>
                <Badge ok={r.root_readable} yes="readable" no="not readable" title="ROOT's layer decoded every buffer Y wrote, byte-exactly" />
              </td>
              <td>
                <Badge ok={r.roundtrip_ok} yes="byte-exact" no="FAILED" title={r.error ?? 'every buffer decompressed back byte-exactly'} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function ArenaPage() {
  const [state, set] = useUrlState(arenaSchema);
  const index = useArenaIndex();
  const runs = useMemo(() => (index.data?.boards ?? []).map((b) => b.run), [index.data]);
  const files = useMemo(() => [...new Set(runs.map((r) => r.file))].sort(), [runs]);
  const file = state.file || files[0] || '';
  const machines = useMemo(() => runs.filter((r) => r.file === file).map((r) => r.machine), [runs, file]);
  const machine = state.machine && machines.includes(state.machine) ? state.machine : (machines[0] ?? '');

  useEffect(() => {
    if (file && machine && (state.file !== file || state.machine !== machine)) set({ file, machine }, { replace: true });
  }, [file, machine, state.file, state.machine, set]);

  const board = useArenaBoard(file && machine ? { file, machine } : null);
  const data = board.data?.boards[0];
  const rows = useMemo(() => (data ? switchRows(data.results, state.family) : []), [data, state.family]);
  const direction: Direction = state.direction === 'decompress' ? 'decompress' : 'compress';
  const scatter = useMemo(() => scatterTraces(rows, direction), [rows, direction]);
  const shapes = useMemo(() => [...new Set((data?.shapes ?? []).map((r) => r.shape ?? ''))].filter(Boolean).sort(), [data]);
  const shapeRows = useMemo(() => switchRows((data?.shapes ?? []).filter((r) => r.shape === state.shape), state.family), [data, state.shape, state.family]);
  const zstd = data?.level_mapping.zstd ?? [];
  const lz4 = data?.level_mapping.lz4 ?? [];
  const chosen = parseRow(state.row);
  const history = useArenaHistory(chosen && file && machine ? { file, machine, ...chosen } : null);

  if (index.isPending) return <Spinner label="Loading the codec arena…" />;
  if (index.error) return <ErrorState error={index.error} retry={() => void index.refetch()} />;
  if (runs.length === 0) {
    return (
      <>
        <PageHeader title="Codec arena" />
        <EmptyState>
          No arena measurements yet: run <code>basketbench arena FILE.root --json arena.json</code> and upload it (POST /api/v1/arena-runs), trigger
          the <code>arena</code> suite for a commit, or run <code>make demo</code>.
        </EmptyState>
      </>
    );
  }
  const run = data?.run;
  const subtitle = run ? `${plotText(run.file)} · ${plotText(run.machine)} · ROOT's layer ${run.commit ? shortSha(run.commit) : 'host'}` : '';
  const mappingPlot = (family: 'zstd' | 'lz4', mapped: ArenaResult[]) => {
    if (!mapped.length) return null;
    const own = referenceLevel(mapped);
    const setting = mapped[0]!.reference_setting;
    return (
      <Plot
        id={`arena-mapping-${family}`}
        title={`${family === 'zstd' ? 'ZSTD' : 'LZ4 / LZ4HC'} level mapping: what ${setting} would cost and save at each native level${own !== null ? ` (ROOT runs level ${own})` : ''}<br><sup>${subtitle}</sup>`}
        data={mappingTraces(mapped)}
        pointCount={mapped.length * 3}
        filename={`arena-mapping-${family}-${run?.file ?? ''}`}
        csv={() => ({
          header: ['native_level', 'root_setting', 'reference_setting', 'compressed_bytes', 'reference_bytes', 'size_change_pct', 'compress_ratio', 'compress_ci_low', 'compress_ci_high', 'decompress_ratio'],
          rows: mapped.map((r) => [r.level, r.root_setting, r.reference_setting, r.compressed_bytes, r.reference_bytes, r.size_change_pct, r.compress_ratio?.median ?? null, r.compress_ratio?.ci_low ?? null, r.compress_ratio?.ci_high ?? null, r.decompress_ratio?.median ?? null]),
        })}
        layout={{
          xaxis: { title: { text: `native ${family} level` }, dtick: 1 },
          yaxis: { title: { text: `size change vs ${setting} [%]` }, zeroline: true },
          yaxis2: { title: { text: `speed / ${setting}'s` }, overlaying: 'y' as const, side: 'right' as const, type: 'log' as const },
          shapes: own !== null ? [{ type: 'line' as const, x0: own, x1: own, yref: 'paper' as const, y0: 0, y1: 1, line: { dash: 'dot' as const, width: 1 } }] : [],
        }}
        height={380}
      />
    );
  };
  return (
    <>
      <PageHeader title="Codec arena">
        What would switching ROOT's X to Y do? Candidate codecs inside ROOT's 9-byte framing on this file's own baskets or pages, against ROOT's
        current setting: the exact size change, compression and decompression speed as interleaved A/B ratios Y/X with their 95 % intervals (&gt; 1:
        Y is faster; green and red only where the interval excludes 1), instructions per MB, and whether ROOT can read Y's output (basketbench arena).
      </PageHeader>
      <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="arena selection">
        <SelectField name="file" label="File" value={file} options={files.map((f) => ({ value: f, label: f }))} onChange={(v) => set({ file: v, machine: '', row: '', shape: '' })} />
        <SelectField name="machine" label="Machine" value={machine} options={machines.map((m) => ({ value: m, label: m }))} onChange={(v) => set({ machine: v, row: '' })} />
        <SelectField name="family" label="Family" value={state.family} allowEmpty="all" options={FAMILIES.map((f) => ({ value: f, label: f }))} onChange={(v) => set({ family: v })} />
        <SelectField
          name="direction"
          label="Scatter speed"
          value={direction}
          options={[
            { value: 'compress', label: 'compression' },
            { value: 'decompress', label: 'decompression' },
          ]}
          onChange={(v) => set({ direction: v })}
        />
      </form>
      {board.error && <ErrorState error={board.error} retry={() => void board.refetch()} />}
      {board.isLoading && <Spinner label="Loading the board…" />}
      {run && (
        <p className="muted" data-testid="arena-run">
          {run.format === 'rntuple' ? 'RNTuple pages' : 'TTree baskets'}: {run.buffers.toLocaleString()} buffers
          {run.embedded_buffers ? ` (${run.embedded_buffers.toLocaleString()} kept inside their TBranch)` : ''}, {fmtBytes(run.uncompressed_bytes)} uncompressed ·
          measured {fmtDate(run.created_at)} · ROOT's layer {run.commit ? `of commit ${shortSha(run.commit)}` : 'of the host'}
          {run.reference && typeof run.reference.label === 'string' ? ` (${run.reference.label})` : ''} · load{' '}
          {JSON.stringify(run.load.loadavg_start ?? null)} → {JSON.stringify(run.load.loadavg_end ?? null)}
        </p>
      )}
      {data && rows.length === 0 && <EmptyState>No candidate of this family on this board.</EmptyState>}
      {data && rows.length > 0 && (
        <>
          <SwitchTable rows={rows} selected={state.row} onSelect={(key) => set({ row: key })} />
          <Plot
            id="arena-scatter"
            title={`Size change against ${direction}ion speed, each candidate over its levels<br><sup>${subtitle}${scatter.left_out ? ` · ${scatter.left_out} without a measured ratio left out` : ''}</sup>`}
            data={scatter.traces}
            pointCount={rows.length}
            filename={`arena-scatter-${run?.file ?? ''}`}
            csv={() => ({
              header: ['candidate', 'level', 'reference_setting', 'size_change_pct', `${direction}_ratio`, 'ci_low', 'ci_high'],
              rows: rows.map((r) => {
                const ratio = direction === 'compress' ? r.compress_ratio : r.decompress_ratio;
                return [r.candidate, r.level, r.reference_setting, r.size_change_pct, ratio?.median ?? null, ratio?.ci_low ?? null, ratio?.ci_high ?? null];
              }),
            })}
            layout={{
              xaxis: { title: { text: "size change vs ROOT's setting [%] (left: smaller files)" }, zeroline: true },
              yaxis: { title: { text: `${direction}ion speed / ROOT's (log)` }, type: 'log' as const },
              shapes: [{ type: 'line' as const, xref: 'paper' as const, x0: 0, x1: 1, y0: 1, y1: 1, line: { dash: 'dot' as const, width: 1 } }],
            }}
          />
        </>
      )}
      {mappingPlot('zstd', zstd)}
      {mappingPlot('lz4', lz4)}
      {chosen && history.error && <ErrorState error={history.error} />}
      {chosen && history.data && (
        <Plot
          id="arena-history"
          title={`${plotText(chosen.candidate)} ${chosen.level} against ${rootSetting(chosen.reference_setting)} over ROOT commits<br><sup>${subtitle}</sup>`}
          data={historyTraces(history.data.points, shortSha)}
          pointCount={history.data.points.length * 3}
          filename={`arena-history-${chosen.candidate}-${chosen.level}`}
          csv={() => ({
            header: ['commit', 'size_change_pct', 'compress_ratio', 'compress_ci_low', 'compress_ci_high', 'decompress_ratio', 'decompress_ci_low', 'decompress_ci_high'],
            rows: history.data.points.map((p) => [
              p.commit,
              p.size_change_pct,
              p.compress_ratio?.median ?? null,
              p.compress_ratio?.ci_low ?? null,
              p.compress_ratio?.ci_high ?? null,
              p.decompress_ratio?.median ?? null,
              p.decompress_ratio?.ci_low ?? null,
              p.decompress_ratio?.ci_high ?? null,
            ]),
          })}
          layout={{
            xaxis: { title: { text: "commit (ROOT's layer)" }, type: 'category' as const },
            yaxis: { title: { text: 'size change [%]' } },
            yaxis2: { title: { text: "speed / ROOT's" }, overlaying: 'y' as const, side: 'right' as const },
          }}
          height={340}
        />
      )}
      {shapes.length > 0 && (
        <>
          <form className="controls" onSubmit={(e) => e.preventDefault()} aria-label="arena data shape">
            <SelectField name="shape" label="Per data shape" value={state.shape} allowEmpty="choose a shape" options={shapes.map((s) => ({ value: s, label: s }))} onChange={(v) => set({ shape: v })} />
          </form>
          {state.shape && <SwitchTable rows={shapeRows} selected="" onSelect={() => undefined} />}
        </>
      )}
      {run && (
        <table className="table" data-testid="arena-candidates">
          <caption>Candidates: where each one's code came from</caption>
          <thead>
            <tr>
              <th>candidate</th>
              <th>family</th>
              <th>version</th>
              <th>source</th>
              <th>source SHA-256</th>
              <th>ROOT reads its output</th>
            </tr>
          </thead>
          <tbody>
            {run.candidates.map((c) => (
              <tr key={c.candidate} title={c.what ?? ''}>
                <td>{c.candidate}</td>
                <td>{c.family}</td>
                <td>{c.version}</td>
                <td>{c.source}</td>
                <td>
                  <code>{c.sha256 ? c.sha256.slice(0, 16) + '…' : '—'}</code>
                </td>
                <td>
                  <Badge ok={c.root_readable} yes="readable" no="not readable" title="ROOT's layer decoded every buffer it wrote" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
