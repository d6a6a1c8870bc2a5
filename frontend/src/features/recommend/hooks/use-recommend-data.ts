// The Recommend page's data: its URL state (source and cost model) with the defaults written
// into it, the measured settings (the tracker's trade-off, an advise run's stored advice or an
// advise --json file read in the page), the server's ranking and the groups' sizes.
import { useEffect, useMemo, useState } from 'react';
import { useCommits, latestCommit } from '@/api/get-commits';
import { useDimensions } from '@/api/get-dimensions';
import { useTradeoffs } from '@/api/get-tradeoff';
import { useUrlState } from '@/lib/url-state';
import type { Candidate, CostModel } from '@/types/api';
import { useAdvice } from '../api/advise-runs';
import { useBranchSizes } from '../api/get-branch-sizes';
import { useSpeedEvidence } from '../api/get-speeds';
import { useRecommendation } from '../api/post-recommend';
import { modelOf, modelPatch, recommendSchema } from '../components/recommend-state';
import { fromTradeoff, parseAdvice, speedsOf, toGroupSizes, type AdviceFile } from '../utils/candidates';

export function useRecommendData() {
  const [state, set] = useUrlState(recommendSchema);
  const dims = useDimensions();
  const commits = useCommits({ limit: 1 });
  const { machine, dataset } = state;
  // An advise --json file from disk: its settings cannot go into the URL (only its cost model does).
  const [fileAdvice, setFileAdvice] = useState<AdviceFile | null>(null);
  const [adviceError, setAdviceError] = useState<string | null>(null);
  const model = useMemo(
    () => modelOf(state),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the model's fields, not the whole state
    [state.storage_per_tb_month, state.months, state.cpu_per_core_hour, state.reads_per_file, state.writes_per_file, state.network_mb_per_s],
  );
  const newest = commits.data ? latestCommit(commits.data.items) : undefined;
  const commit = newest?.sha ?? '';
  const committedAt = newest?.date ?? null;

  // Resolve defaults into the URL (replace, no history entry), as the other pages do.
  useEffect(() => {
    if (!dims.data) return;
    const patch: { machine?: string; dataset?: string } = {};
    if (!machine && dims.data.machines[0]) patch.machine = dims.data.machines[0];
    const real = dims.data.datasets.find((d) => !dims.data.synthetic_datasets.includes(d));
    if (!dataset && (real ?? dims.data.datasets[0])) patch.dataset = real ?? dims.data.datasets[0] ?? '';
    if (Object.keys(patch).length) set(patch, { replace: true });
  }, [dims.data, machine, dataset, set]);

  // The advise run the URL names: its stored document, read as a file would be.
  const run = useAdvice(state.advise);
  const runAdvice = useMemo((): { advice: AdviceFile | null; error: string | null } => {
    if (!run.data) return { advice: null, error: run.error ? `advise run ${state.advise}: ${run.error.message}` : null };
    try {
      return { advice: parseAdvice(JSON.stringify(run.data)), error: null };
    } catch (e) {
      return { advice: null, error: `advise run ${state.advise}: ${(e as Error).message}` };
    }
  }, [run.data, run.error, state.advise]);
  const advice = state.advise ? runAdvice.advice : fileAdvice;
  /** the measured settings come from the tracker (not from advice) */
  const tracker = !state.advise && !fileAdvice;

  const [tradeoff] = useTradeoffs(
    tracker ? [{ commit, machine, dataset, preconditioner: 'none', dictionary_size: 0, basket_size: 0, mode: 'basket', threads: 1 }] : [],
  );
  // The tracker's speeds from evidence that does not swing with the load (an A/B against a
  // reference, the median of the commit's runs), with their samples for the stability; the
  // trade-off points' medians only when that answer is missing.
  const evidence = useSpeedEvidence(machine, dataset, commit, tracker);
  const candidates: Candidate[] = useMemo(() => {
    if (advice) return advice.candidates;
    if (!tracker) return [];
    if (evidence.data && evidence.data.speeds.length > 0) {
      return evidence.data.speeds.map((s) => ({
        setting: s.setting,
        preconditioner: 'none' as const,
        raw_bytes: s.raw_bytes,
        compressed_bytes: s.compressed_bytes,
        compress_mb_s: s.compress_mb_s,
        decompress_mb_s: s.decompress_mb_s,
        ...(s.compress_samples && s.decompress_samples ? { compress_samples: s.compress_samples, decompress_samples: s.decompress_samples } : {}),
      }));
    }
    return evidence.isPending && evidence.fetchStatus !== 'idle' ? [] : tradeoff?.data ? fromTradeoff(tradeoff.data.points, 'none') : [];
  }, [advice, tracker, tradeoff?.data, evidence.data, evidence.isPending, evidence.fetchStatus]);
  const rec = useRecommendation(candidates, model);
  // Per type class and per branch: the advise file's groups, or the tracker's stored branch sizes.
  const storedTypeClasses = useBranchSizes(commit, dataset, 'type_class', tracker);
  const storedBranches = useBranchSizes(commit, dataset, 'branch', tracker);
  const typeClassGroups = useMemo(
    () => advice?.typeClasses ?? (tracker ? toGroupSizes(storedTypeClasses.data?.groups ?? [], 'groups') : []),
    [advice, tracker, storedTypeClasses.data],
  );
  const branchGroups = useMemo(
    () => advice?.branches ?? (tracker ? toGroupSizes(storedBranches.data?.groups ?? [], 'groups') : []),
    [advice, tracker, storedBranches.data],
  );
  const speeds = useMemo(() => speedsOf(candidates), [candidates]);
  const loading = tracker ? tradeoff?.isPending === true && tradeoff.fetchStatus !== 'idle' : state.advise > 0 && run.isPending;

  /** Rank an advise --json file from disk (runId undefined) or an advise run's stored advice. */
  const loadAdvice = (a: AdviceFile, runId?: number) => {
    setFileAdvice(runId === undefined ? a : null);
    set({ advise: runId ?? 0, ...(a.model ? modelPatch(a.model) : {}), ...(a.currency ? { currency: a.currency } : {}) });
    setAdviceError(null);
  };
  /** Back to the tracker's results for another machine or dataset. */
  const choose = (patch: { machine?: string; dataset?: string }) => {
    setFileAdvice(null);
    set({ ...patch, advise: 0 });
  };
  const setModel = (patch: Partial<CostModel>) => set(modelPatch(patch), { replace: true });
  const setCurrency = (currency: string) => set({ currency }, { replace: true });

  return {
    dims, commits, machine, dataset, commit, committedAt, model, advice, candidates, rec, typeClassGroups, branchGroups, speeds, loading,
    currency: state.currency || 'USD', trackerEvidence: tracker ? (evidence.data?.description ?? null) : null, trackerCodecs: tracker ? (tradeoff?.data?.codecs ?? null) : null,
    adviceError: adviceError ?? (state.advise ? runAdvice.error : null),
    setAdviceError, loadAdvice, choose, setModel, setCurrency,
  };
}
