"""The speeds the Recommend page ranks a commit's settings with, from evidence that does not
swing with the load (issue 32, item 5), in order of preference per setting:

1. "ab": an interleaved A/B of this commit against a reference build on this machine
   (ab_effects, ratio = B/A per pair): the reference's median speed over its runs here times
   the A/B ratio; resampled over the per-pair ratios. Load hits both sides of a pair alike, so
   the ratio holds where absolute MB/s swing.
2. "history": the median over this commit's runs on the machine (each run's median), when it
   was measured more than once (reruns, confirmations); resampled over the runs' medians.
3. "this-run": the one run's medians; its samples are not stored, so there is nothing to
   resample: stability is stated as unknown.

Basket mode, no preconditioner, no dictionary, the file's basket sizes, one thread: the
trade-off page's points the Recommend page ranks.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.catalog.lookup import get_commit, get_dataset, get_machine
from basketbench.models import AbEffect, AbRun, Configuration, Result

_DESCRIPTIONS = {
    "ab": "an interleaved A/B against {ref} on this machine: the reference's median speed "
          "times the A/B ratio (load hits both sides of a pair alike)",
    "history": "the median of this commit's {runs} runs on this machine (each run's median)",
    "this-run": "the one run's median speeds (this commit was measured once here and without "
                "an A/B: a run at another load may rank otherwise)",
}
_RANK = {"ab": 0, "history": 1, "this-run": 2}


def _run_medians(session: Session, commit_id: int, machine_id: int, dataset_id: int
                 ) -> dict[int, list[tuple[float, float, int, int]]]:
    """Per setting: (compress, decompress median, raw bytes, compressed bytes) of each run."""
    rows = session.execute(
        select(Configuration.setting, Result.c_median, Result.d_median,
               Result.uncompressed_bytes, Result.compressed_bytes)
        .join(Configuration, Configuration.id == Result.configuration_id)
        .where(Result.commit_id == commit_id, Result.machine_id == machine_id,
               Result.dataset_id == dataset_id, Result.error.is_(None),
               Configuration.algorithm != 0, Configuration.preconditioner == "none",
               Configuration.dictionary_size == 0, Configuration.basket_size == 0,
               Configuration.mode == "basket", Configuration.threads == 1)
        .order_by(Result.id)).all()
    out: dict[int, list[tuple[float, float, int, int]]] = defaultdict(list)
    for setting, c, d, raw, comp in rows:
        if c and d and raw and comp:
            out[int(setting)].append((float(c), float(d), int(raw), int(comp)))
    return out


def _ab(session: Session, commit_id: int, machine_id: int, dataset_id: int
        ) -> tuple[dict[tuple[int, str], tuple[float, list[float]]], int | None, str | None]:
    """The newest A/B of this commit on the machine: (setting, metric) -> (ratio, per-pair
    ratios), its reference commit and label."""
    ab_run = session.scalar(
        select(AbRun).where(AbRun.commit_id == commit_id, AbRun.machine_id == machine_id,
                            AbRun.error.is_(None), AbRun.reference_commit_id.is_not(None))
        .order_by(AbRun.id.desc()).limit(1))
    if ab_run is None:
        return {}, None, None
    effects = session.execute(
        select(Configuration.setting, AbEffect.metric, AbEffect.ratio, AbEffect.samples)
        .join(Configuration, Configuration.id == AbEffect.configuration_id)
        .where(AbEffect.ab_run_id == ab_run.id, AbEffect.dataset_id == dataset_id,
               Configuration.preconditioner == "none", Configuration.threads == 1)).all()
    out = {(int(s), str(m)): (float(r), [float(x) for x in (samples or [r])])
           for s, m, r, samples in effects if r}
    return out, ab_run.reference_commit_id, ab_run.reference_label


def speed_evidence(session: Session, machine: str, dataset: str, commit: str) -> dict[str, Any]:
    m = get_machine(session, machine)
    ds = get_dataset(session, dataset)
    c = get_commit(session, commit)
    mine = _run_medians(session, c.id, m.id, ds.id)
    effects, ref_id, ref_label = _ab(session, c.id, m.id, ds.id)
    reference = _run_medians(session, ref_id, m.id, ds.id) if ref_id is not None else {}
    speeds: list[dict[str, Any]] = []
    for setting, runs in sorted(mine.items()):
        raw = round(statistics.median(r[2] for r in runs))
        comp = round(statistics.median(r[3] for r in runs))
        ab_c, ab_d = effects.get((setting, "compress_mbps")), effects.get((setting,
                                                                           "decompress_mbps"))
        ref = reference.get(setting)
        if ab_c and ab_d and ref:
            ref_c = statistics.median(r[0] for r in ref)
            ref_d = statistics.median(r[1] for r in ref)
            source = "ab"
            c_speed, d_speed = ref_c * ab_c[0], ref_d * ab_d[0]
            c_samples = [ref_c * x for x in ab_c[1]]
            d_samples = [ref_d * x for x in ab_d[1]]
        else:
            source = "history" if len(runs) > 1 else "this-run"
            c_samples = [r[0] for r in runs]
            d_samples = [r[1] for r in runs]
            c_speed, d_speed = statistics.median(c_samples), statistics.median(d_samples)
        speeds.append({"setting": setting, "preconditioner": "none", "raw_bytes": raw,
                       "compressed_bytes": comp, "compress_mb_s": c_speed,
                       "decompress_mb_s": d_speed, "source": source, "runs": len(runs),
                       # one run: no samples stored, nothing to resample
                       "compress_samples": c_samples if source != "this-run" else None,
                       "decompress_samples": d_samples if source != "this-run" else None})
    # the weakest evidence any setting has is the ranking's
    sources: list[str] = [s["source"] for s in speeds]
    source = max(sources, key=_RANK.__getitem__, default="this-run")
    fewest = min((int(s["runs"]) for s in speeds), default=0)
    ref_name = ref_label or "its reference build"
    return {"commit": c.sha, "machine": m.name, "dataset": ds.name, "source": source,
            "description": _DESCRIPTIONS[source].format(ref=ref_name, runs=fewest),
            "speeds": speeds}
