// Which setting? The measured settings of a dataset (or of an `advise --json` file) ranked by
// total cost under a cost model set with sliders; the server ranks (POST /recommend).
import { PageHeader, SelectField, Toolbar } from '@/components/ui/field';
import { EmptyState, ErrorState, NO_RESULTS_HINT, Spinner } from '@/components/ui/states';
import { shortSha } from '@/lib/format';
import { Plot } from '@/lib/plot';
import { plotText } from '@/lib/plot-text';
import { useRecommendData } from '../hooks/use-recommend-data';
import { parseAdvice } from '../utils/candidates';
import { logTicks } from '@/lib/log-ticks';
import { settingLabel } from '@/lib/format';
import { rankingCsv, recommendTraces } from '../utils/traces';
import { AdviseRuns } from './advise-runs';
import { CostSliders } from './cost-sliders';
import { GroupTable } from './group-table';
import { adviceRows, Provenance, RootSnippet, trackerRows } from './provenance';
import { RankingTable } from './ranking-table';

const labelWords = (label: string) => {
  const [setting, pre] = label.split('+');
  return `${settingLabel(Number(setting))}${pre ? ` + ${pre}` : ''} (${label})`;
};

export function RecommendPage() {
  const {
    dims, commits, machine, dataset, commit, committedAt, model, advice, candidates, rec, typeClassGroups, branchGroups, speeds, loading,
    currency, trackerCodecs, trackerEvidence, adviceError, setAdviceError, loadAdvice, choose, setModel, setCurrency,
  } = useRecommendData();

  if (dims.isPending || commits.isPending) return <Spinner label="Loading dimensions…" />;
  if (dims.error) return <ErrorState error={dims.error} retry={() => void dims.refetch()} />;
  if (commits.error) return <ErrorState error={commits.error} />;

  const onFile = (file: File | undefined) => {
    if (!file) return;
    if (file.size > 20_000_000) {
      setAdviceError(`${file.name}: ${file.size} bytes, more than the 20 MB an advice file can be`);
      return;
    }
    void file.text().then((text) => {
      try {
        loadAdvice(parseAdvice(text));
      } catch (e) {
        setAdviceError(`${file.name}: ${(e as Error).message}`);
      }
    });
  };

  const source = advice ? `${plotText(advice.file)} (advise --json)` : `${plotText(dataset)} · ${plotText(machine)} · ${shortSha(commit)}`;
  const ranking = rec.data?.ranking ?? [];
  const traces = recommendTraces(ranking);
  const ticks = logTicks(ranking.map((r) => r.decompress_mb_s));
  const provenanceRows = advice ? adviceRows(advice) : trackerRows(trackerCodecs, machine, commit, committedAt);
  const stability = advice
    ? (advice.stability?.statement ?? 'not stated in this advice file (written by an older basketbench advise)')
    : (rec.data?.stability?.statement ??
      "unknown: one run's medians, its samples are not stored (a rerun or an A/B of the commit gives the samples to resample; `basketbench advise` states it)");
  const evidence = advice
    ? (advice.speedEvidence ?? 'not stated in this advice file')
    : (trackerEvidence ?? `the median speeds of commit ${commit.slice(0, 12)}'s run on ${machine}`);
  const stable = advice ? advice.stability : rec.data?.stability;
  const unstable = stable && !stable.stable ? stable.contenders : [];

  return (
    <>
      <PageHeader title="Recommend" />
      <Toolbar>
        <SelectField label="Machine" name="machine" value={machine} options={dims.data.machines.map((m) => ({ value: m }))} onChange={(v) => choose({ machine: v })} />
        <SelectField label="Dataset" name="dataset" value={dataset} options={dims.data.datasets.map((d) => ({ value: d }))} onChange={(v) => choose({ dataset: v })} />
        <label className="field">
          <span>or an advise --json file</span>
          <input type="file" accept=".json,application/json" data-testid="advice-file" onChange={(e) => onFile(e.target.files?.[0])} />
        </label>
      </Toolbar>
      <AdviseRuns onLoad={loadAdvice} onError={setAdviceError} />
      {adviceError && <div role="alert" className="error">{adviceError}</div>}
      <CostSliders model={model} currency={currency} onChange={setModel} onCurrency={setCurrency} />
      {!advice && dims.data.machines.length === 0 ? (
        <EmptyState>{NO_RESULTS_HINT}</EmptyState>
      ) : candidates.length === 0 ? (
        loading ? <Spinner label="Loading measurements…" /> : <EmptyState>No setting with a size and both speeds for this choice.</EmptyState>
      ) : rec.error ? (
        <ErrorState error={rec.error} retry={() => void rec.refetch()} />
      ) : !rec.data ? (
        <Spinner label="Ranking…" />
      ) : (
        <>
          {unstable.length > 1 && (
            <p data-testid="contenders" className="warning">
              <strong>No stable winner:</strong> {unstable.map(labelWords).join(' or ')}, depending on the speeds measured (see stability below).
            </p>
          )}
          <p data-testid="recommendation" data-recommended={rec.data.recommended} data-fetching={rec.isFetching ? 'true' : 'false'}>
            <strong>{rec.data.summary}</strong>
            <span className="muted">
              {' '}
              (costs per file in {currency}: storage for {model.months} months, {model.writes_per_file} write(s) and {model.reads_per_file} full reads)
            </span>
          </p>
          <Provenance rows={provenanceRows} stability={stability} evidence={evidence} />
          <Plot
            id="recommend"
            title={`compression ratio vs decompression speed; ★ = recommended<br><sup>${source}</sup>`}
            data={traces}
            pointCount={ranking.length}
            filename={`recommend-${advice ? advice.file : dataset}`}
            layout={{ xaxis: { title: { text: 'decompression speed [MB/s]' }, type: 'log', tickmode: 'array', ...ticks }, yaxis: { title: { text: 'compression ratio' } } }}
            csv={() => rankingCsv(ranking)}
          />
          <RankingTable ranking={ranking} currency={currency} />
          <RootSnippet snippet={rec.data.snippet} title={`Apply ${labelWords(rec.data.recommended)} in ROOT`} />
          {(typeClassGroups.length > 0 || branchGroups.length > 0) && (
            <>
              <h2>Per type class and per branch</h2>
              <p className="muted">
                Each group ranked with its own exact compressed sizes and the file&apos;s speeds, under the cost model above; ROOT allows a setting per branch.
              </p>
              {typeClassGroups.length > 0 && <GroupTable kind="type_class" groups={typeClassGroups} speeds={speeds} model={model} currency={currency} />}
              {branchGroups.length > 0 && <GroupTable kind="branch" groups={branchGroups} speeds={speeds} model={model} currency={currency} />}
            </>
          )}
        </>
      )}
    </>
  );
}
