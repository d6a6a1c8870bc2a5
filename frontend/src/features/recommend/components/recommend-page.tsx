// Which setting? The measured settings of a dataset (or of an `advise --json` file) ranked by
// total cost under a cost model set with sliders; the server ranks (POST /recommend).
import { useEffect, useMemo, useState } from 'react';
import type { Data } from 'plotly.js';
import { useCommits, latestCommit } from '@/api/get-commits';
import { useDimensions } from '@/api/get-dimensions';
import { PageHeader, SelectField, Toolbar } from '@/components/ui/field';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { settingLabel, shortSha } from '@/lib/format';
import { Plot } from '@/lib/plot';
import { plotText } from '@/lib/plot-text';
import type { Candidate, CostModel } from '@/types/api';
import { useTradeoffs } from '@/api/get-tradeoff';
import { useRecommendation } from '../api/post-recommend';
import { useBranchSizes } from '../api/get-branch-sizes';
import { DEFAULT_MODEL, fromTradeoff, parseAdvice, speedsOf, toGroupSizes, type AdviceFile } from '../utils/candidates';
import { AdviseRuns } from './advise-runs';
import { GroupTable } from './group-table';

interface Slider {
  key: keyof CostModel;
  label: string;
  min: number;
  max: number;
  step: number;
}

const SLIDERS: Slider[] = [
  { key: 'storage_per_tb_month', label: 'storage per TB-month', min: 0, max: 100, step: 1 },
  { key: 'months', label: 'months kept', min: 1, max: 120, step: 1 },
  { key: 'cpu_per_core_hour', label: 'CPU per core-hour', min: 0, max: 2, step: 0.01 },
  { key: 'reads_per_file', label: 'reads per file', min: 0, max: 1000, step: 1 },
  { key: 'writes_per_file', label: 'writes per file', min: 1, max: 10, step: 1 },
  { key: 'network_mb_per_s', label: 'network MB/s', min: 10, max: 10000, step: 10 },
];

function label(c: { setting: number; preconditioner: string }): string {
  return c.preconditioner === 'none' ? String(c.setting) : `${c.setting}+${c.preconditioner}`;
}

export function RecommendPage() {
  const dims = useDimensions();
  const commits = useCommits({ limit: 1 });
  const [machine, setMachine] = useState('');
  const [dataset, setDataset] = useState('');
  const [advice, setAdvice] = useState<AdviceFile | null>(null);
  const [adviceError, setAdviceError] = useState<string | null>(null);
  const [model, setModel] = useState<CostModel>(DEFAULT_MODEL);
  const commit = commits.data ? (latestCommit(commits.data.items)?.sha ?? '') : '';

  useEffect(() => {
    if (!dims.data) return;
    if (!machine && dims.data.machines[0]) setMachine(dims.data.machines[0]);
    const real = dims.data.datasets.find((d) => !dims.data.synthetic_datasets.includes(d));
    if (!dataset && (real ?? dims.data.datasets[0])) setDataset(real ?? dims.data.datasets[0] ?? '');
  }, [dims.data, machine, dataset]);

  const [tradeoff] = useTradeoffs(
    advice ? [] : [{ commit, machine, dataset, preconditioner: 'none', dictionary_size: 0, basket_size: 0, mode: 'basket', threads: 1 }],
  );
  const candidates: Candidate[] = useMemo(
    () => advice?.candidates ?? (tradeoff?.data ? fromTradeoff(tradeoff.data.points, 'none') : []),
    [advice, tradeoff?.data],
  );
  const rec = useRecommendation(candidates, model);
  // Per type class and per branch: the advise file's groups, or the tracker's stored branch sizes.
  const storedTypeClasses = useBranchSizes(commit, dataset, 'type_class', !advice);
  const storedBranches = useBranchSizes(commit, dataset, 'branch', !advice);
  const typeClassGroups = useMemo(
    () => advice?.typeClasses ?? toGroupSizes(storedTypeClasses.data?.groups ?? [], 'groups'),
    [advice, storedTypeClasses.data],
  );
  const branchGroups = useMemo(
    () => advice?.branches ?? toGroupSizes(storedBranches.data?.groups ?? [], 'groups'),
    [advice, storedBranches.data],
  );
  const speeds = useMemo(() => speedsOf(candidates), [candidates]);

  if (dims.isPending || commits.isPending) return <Spinner label="Loading dimensions…" />;
  if (dims.error) return <ErrorState error={dims.error} retry={() => void dims.refetch()} />;
  if (commits.error) return <ErrorState error={commits.error} />;

  const onAdvice = (a: AdviceFile) => {
    setAdvice(a);
    if (a.model) setModel(a.model);
    setAdviceError(null);
  };

  const onFile = (file: File | undefined) => {
    if (!file) return;
    if (file.size > 20_000_000) {
      setAdviceError(`${file.name}: ${file.size} bytes, more than the 20 MB an advice file can be`);
      return;
    }
    void file.text().then((text) => {
      try {
        onAdvice(parseAdvice(text));
      } catch (e) {
        setAdviceError(`${file.name}: ${(e as Error).message}`);
      }
    });
  };

  const source = advice ? `${plotText(advice.file)} (advise --json)` : `${plotText(dataset)} · ${plotText(machine)} · ${shortSha(commit)}`;
  const ranking = rec.data?.ranking ?? [];
  const best = ranking[0];
  const traces: Data[] = [
    {
      type: 'scatter',
      mode: 'text+markers',
      name: 'measured',
      x: ranking.map((r) => r.decompress_mb_s),
      y: ranking.map((r) => r.ratio),
      text: ranking.map((r) => `${settingLabel(r.setting)}${r.preconditioner === 'none' ? '' : `+${r.preconditioner}`}`),
      textposition: 'top center',
      marker: { size: 9, symbol: ranking.map((r) => (r.pareto ? 'circle' : 'circle-open')) },
      hovertemplate: '%{text}<br>ratio %{y:.3f}<br>decompression %{x:.1f} MB/s<extra></extra>',
    },
    ...(best
      ? [
          {
            type: 'scatter' as const,
            mode: 'markers' as const,
            name: `recommended: ${settingLabel(best.setting)}`,
            x: [best.decompress_mb_s],
            y: [best.ratio],
            marker: { size: 20, symbol: 'star', color: '#d4a017', line: { width: 1, color: '#1f2328' } },
            hoverinfo: 'skip' as const,
          },
        ]
      : []),
  ];

  return (
    <>
      <PageHeader title="Recommend" />
      <Toolbar>
        <SelectField label="Machine" name="machine" value={machine} options={dims.data.machines.map((m) => ({ value: m }))} onChange={(v) => { setMachine(v); setAdvice(null); }} />
        <SelectField label="Dataset" name="dataset" value={dataset} options={dims.data.datasets.map((d) => ({ value: d }))} onChange={(v) => { setDataset(v); setAdvice(null); }} />
        <label className="field">
          <span>or an advise --json file</span>
          <input type="file" accept=".json,application/json" data-testid="advice-file" onChange={(e) => onFile(e.target.files?.[0])} />
        </label>
      </Toolbar>
      <AdviseRuns onLoad={onAdvice} onError={setAdviceError} />
      {adviceError && <div role="alert" className="error">{adviceError}</div>}
      <Toolbar>
        {SLIDERS.map((s) => (
          <label className="field" key={s.key}>
            <span>
              {s.label}: <output data-testid={`value-${s.key}`}>{model[s.key]}</output>
            </span>
            <input
              type="range"
              name={s.key}
              data-testid={`slider-${s.key}`}
              min={s.min}
              max={s.max}
              step={s.step}
              value={model[s.key]}
              onChange={(e) => setModel((m) => ({ ...m, [s.key]: Number(e.target.value) }))}
            />
          </label>
        ))}
        <button type="button" className="btn btn-small" onClick={() => setModel(DEFAULT_MODEL)}>defaults</button>
      </Toolbar>
      {!advice && dims.data.machines.length === 0 ? (
        <EmptyState>{NO_RESULTS_HINT}</EmptyState>
      ) : candidates.length === 0 ? (
        tradeoff?.isPending && tradeoff.fetchStatus !== 'idle' ? <Spinner label="Loading measurements…" /> : <EmptyState>No setting with a size and both speeds for this choice.</EmptyState>
      ) : rec.error ? (
        <ErrorState error={rec.error} retry={() => void rec.refetch()} />
      ) : !rec.data ? (
        <Spinner label="Ranking…" />
      ) : (
        <>
          <p data-testid="recommendation" data-recommended={rec.data.recommended} data-fetching={rec.isFetching ? 'true' : 'false'}>
            <strong>{rec.data.summary}</strong>
          </p>
          <Plot
            id="recommend"
            title={`compression ratio vs decompression speed; ★ = recommended<br><sup>${source}</sup>`}
            data={traces}
            pointCount={ranking.length}
            filename={`recommend-${advice ? advice.file : dataset}`}
            layout={{ xaxis: { title: { text: 'decompression speed [MB/s]' }, type: 'log' }, yaxis: { title: { text: 'compression ratio' } } }}
            csv={() => ({
              header: ['rank', 'setting', 'compressed_bytes', 'ratio', 'compress_mb_s', 'decompress_mb_s', 'cost_storage', 'cost_write', 'cost_read', 'cost_total', 'pareto'],
              rows: ranking.map((r) => [r.rank, label(r), r.compressed_bytes, r.ratio, r.compress_mb_s, r.decompress_mb_s, r.cost_storage, r.cost_write, r.cost_read, r.cost_total, r.pareto ? 'yes' : 'no']),
            })}
          />
          <table className="table" data-testid="ranking">
            <thead>
              <tr>
                {['rank', 'setting', 'compressed bytes', 'ratio', 'comp MB/s', 'decomp MB/s', 'storage', 'write', 'read', 'total', 'Pareto'].map((h) => (
                  <th key={h}>{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {ranking.map((r) => (
                <tr
                  key={r.label}
                  data-testid="rank-row"
                  data-label={r.label}
                  data-raw={r.raw_bytes}
                  data-compressed={r.compressed_bytes}
                  data-compress={r.compress_mb_s}
                  data-decompress={r.decompress_mb_s}
                >
                  <td>{r.rank}</td>
                  <td>{settingLabel(r.setting)} ({r.label})</td>
                  <td>{r.compressed_bytes.toLocaleString('en-US')}</td>
                  <td>{r.ratio.toFixed(3)}</td>
                  <td>{r.compress_mb_s.toFixed(1)}</td>
                  <td>{r.decompress_mb_s.toFixed(1)}</td>
                  <td>{r.cost_storage.toPrecision(3)}</td>
                  <td>{r.cost_write.toPrecision(3)}</td>
                  <td>{r.cost_read.toPrecision(3)}</td>
                  <td>{r.cost_total.toPrecision(4)}</td>
                  <td>{r.pareto ? 'yes' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {(typeClassGroups.length > 0 || branchGroups.length > 0) && (
            <>
              <h2>Per type class and per branch</h2>
              <p className="muted">
                Each group ranked with its own exact compressed sizes and the file&apos;s speeds, under the cost model above; ROOT allows a setting per branch.
              </p>
              {typeClassGroups.length > 0 && <GroupTable kind="type_class" groups={typeClassGroups} speeds={speeds} model={model} />}
              {branchGroups.length > 0 && <GroupTable kind="branch" groups={branchGroups} speeds={speeds} model={model} />}
            </>
          )}
        </>
      )}
    </>
  );
}
