"""history and compare build their answers from row tuples (issue 13's throughput work);
the answers must be the same bytes as the straightforward implementation they replaced:
ORM rows, one point object per commit, per-row helpers (``_reference_history`` and
``_reference_compare`` below, the code of main 98c4a2c, reusing the unchanged helpers).

On a database seeded by bench/seed.py (commits with a merge, 2 machines, 2 datasets,
5 configurations), plus documents that exercise the rare paths: a second run of a commit
(merged sides, several results per commit), a failed result (no speeds), a zero size.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest
from basketbench.analysis.compare.request import CompareRequest
from basketbench.analysis.compare.rows import _float
from basketbench.analysis.compare.service import compare
from basketbench.analysis.compare.sides import _mean
from basketbench.analysis.configuration import ConfigSelector
from basketbench.analysis.history import _downsample, history
from basketbench.analysis.schemas import CompareSide, SeriesOut
from basketbench.analysis.series import CodecChoice, series_index
from basketbench.catalog import dimensions as dimcache
from basketbench.catalog.lookup import get_commit, get_dataset, get_machine
from basketbench.catalog.service import configuration_out, machine_ref, order_bounds
from basketbench.changes.service import series_markers
from basketbench.core.config import Settings
from basketbench.core.db import make_engine, make_sessionmaker
from basketbench.core.errors import NotFound
from basketbench.models import Commit, Configuration, Machine, Result, ResultDocument
from basketbench.models.result import COUNT_METRICS, METRICS
from basketbench.results import codec_sets as codec_service
from basketbench.results import ingest
from basketbench.stats.deltas import delta_pct, exact_change
from sqlalchemy import Float, cast, func, null, select
from sqlalchemy.orm import Session

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT))  # bench/ (a top-level package of the repository)

from bench.documents import harness_document  # noqa: E402
from bench.world import World  # noqa: E402

COMMITS, MACHINES, DATASETS, CONFIGURATIONS = 30, 2, 2, 5


# ---- the previous implementation ------------------------------------------------------

def choose_codecs(session: Session, where: list[Any], requested: str | None) -> CodecChoice:
    """The codec series among the results matching ``where`` (the reference's way: a
    grouped query over them)."""
    return series_index(session, where).pick(requested)


def _codec_clause(choice: CodecChoice) -> Any:
    """The results of the chosen codec sets (None: those without one)."""
    present = [i for i in choice.ids if i is not None]
    clause = Result.codec_set_id.in_(present)
    return clause | Result.codec_set_id.is_(None) if None in choice.ids else clause


def _metric_columns(metric: str) -> tuple[Any, Any, Any, Any, Any]:
    """(value, min, max, stddev, n) aggregates of one metric over a commit's results, as
    averages (history now sums and merges per codec set)."""
    if metric == "ratio":
        col = Result.ratio
        return func.avg(col), func.min(col), func.max(col), cast(null(), Float), func.count(col)
    if metric == "compressed_bytes":
        col = Result.compressed_bytes
        return (cast(func.avg(col), Float), cast(func.min(col), Float),
                cast(func.max(col), Float), cast(null(), Float), func.count(col))
    if metric in COUNT_METRICS:  # issue 23: one counted pass per result, like an exact metric
        col = getattr(Result, f"{metric[0]}_instructions_per_mb")
        return func.avg(col), func.min(col), func.max(col), cast(null(), Float), func.count(col)
    p = "c" if metric == "compress_mbps" else "d"
    return (func.avg(getattr(Result, f"{p}_median")), func.min(getattr(Result, f"{p}_min")),
            func.max(getattr(Result, f"{p}_max")), func.max(getattr(Result, f"{p}_stddev")),
            func.sum(getattr(Result, f"{p}_n")))


def _reference_builds(session: Session, machine_id: int, commit_id: int,
                      set_ids: list[int | None]) -> list[dict[str, Any]]:
    """Every document of the commit on the machine in the sets, oldest first, as a build."""
    out: list[dict[str, Any]] = []
    docs = session.scalars(select(ResultDocument).where(
        ResultDocument.machine_id == machine_id, ResultDocument.commit_id == commit_id)
        .order_by(ResultDocument.id))
    for d in docs:
        if d.codec_set_id not in set_ids:
            continue
        out.append({"harness": d.tool, "harness_backend": d.backend,
                    "harness_hash": d.harness_hash, "build_profile": d.build_profile,
                    "build_profile_version": d.build_profile_version,
                    "root_commit": d.root_commit})
    return out


def _reference_build(session: Session, machine_id: int, commit_id: int,
                     set_ids: list[int | None]) -> dict[str, Any] | None:
    builds = _reference_builds(session, machine_id, commit_id, set_ids)
    return builds[-1] if builds else None


def _reference_history(session: Session, machine: str, dataset: str, metric: str,
                       sel: ConfigSelector, max_points: int) -> dict[str, Any]:
    m = get_machine(session, machine)
    ds = get_dataset(session, dataset)
    confs = list(session.scalars(select(Configuration).where(*sel.clauses())))
    assert len(confs) == 1, sel
    conf = configuration_out(confs[0])
    lo, hi = order_bounds(session, None, None)
    value, vmin, vmax, vstd, n = _metric_columns(metric)
    where = [Result.machine_id == m.id, Result.dataset_id == ds.id,
             Result.configuration_id == conf.id]
    choice = choose_codecs(session, where, None)
    stmt = (select(Commit.id, Commit.sha, Commit.order, Commit.date, Commit.author,
                   Commit.message, value, vmin, vmax, vstd, n, func.max(Result.run_id),
                   func.max(Result.codec_set_id))
            .join(Commit, Commit.id == Result.commit_id)
            .where(*where, _codec_clause(choice))
            .group_by(Commit.id, Commit.sha, Commit.order, Commit.date, Commit.author,
                      Commit.message)
            .order_by(Commit.order, Commit.date, Commit.id))
    rows = [r for r in session.execute(stmt).all() if r[6] is not None]
    sets = codec_service.describe(session, {r[12] for r in rows if r[12] is not None})
    # HistoryPoint's fields in order (the previous implementation's Point.as_dict()).
    points = [{
        "sha": r[1], "order": r[2], "date": r[3], "author": r[4],
        "message": (r[5] or "").split("\n", 1)[0][:200] or None, "value": float(r[6]),
        "min": _float(r[7]), "max": _float(r[8]), "stddev": _float(r[9]),
        "n": int(r[10]) if r[10] is not None else None, "run_id": r[11],
        "codecs": sets.get(r[12]), "build": _reference_build(session, m.id, r[0], choice.ids)}
        for r in rows]
    changes = series_markers(session, m.id, ds.id, conf.id, metric, choice.ids, lo, hi)
    total = len(points)
    downsampled = total > max_points
    if downsampled:
        keep = {c["sha"] for c in changes} | {c["previous_sha"] for c in changes}
        points = _downsample(points, max_points, keep)
    series = SeriesOut(machine=machine_ref(m), dataset=ds.name,
                       configuration=configuration_out(conf), metric=metric)
    return {"series": series.model_dump(mode="json"), "points": points,
            "changes": changes, "downsampled": downsampled,
            "total_points": total, "codecs": choice.shown, "codec_series": choice.available}


def _reference_side(session: Session, commit_id: int, machine_id: int,
                    dataset_id: int | None, metrics: list[str],
                    codec_clause: Any) -> dict[tuple[int, int], list[Any]]:
    want_c = "compress_mbps" in metrics
    want_d = "decompress_mbps" in metrics
    cols = [Result.dataset_id, Result.configuration_id, Result.ratio, Result.compressed_bytes,
            Result.c_median, Result.d_median,
            Result.c_samples if want_c else Result.c_n, Result.d_samples if want_d else Result.d_n]
    stmt = select(*cols).where(Result.commit_id == commit_id, Result.machine_id == machine_id,
                               codec_clause)
    if dataset_id is not None:
        stmt = stmt.where(Result.dataset_id == dataset_id)
    out: dict[tuple[int, int], list[Any]] = {}
    repeated: dict[tuple[int, int], list[list[Any]]] = {}
    for row in session.execute(stmt).all():
        ds, conf, ratio, cb, cm, dm, cs, dsmp = tuple(row)
        side = [ratio, cb, cm, dm, cs if want_c else None, dsmp if want_d else None]
        if (ds, conf) in out:
            repeated.setdefault((ds, conf), [out[(ds, conf)]]).append(side)
        else:
            out[(ds, conf)] = side
    for key, sides in repeated.items():
        out[key] = [_mean([s[0] for s in sides]), _mean([s[1] for s in sides]),
                    _mean([s[2] for s in sides]), _mean([s[3] for s in sides]),
                    [x for s in sides for x in (s[4] or [])] or None,
                    [x for s in sides for x in (s[5] or [])] or None]
    return out


def _reference_compare(session: Session, settings: Settings, base_commit: str | None,
                       head_commit: str | None, machine: str | None,
                       base_machine: str | None, head_machine: str | None,
                       commit: str | None, dataset: str | None, metric: str | None,
                       only_significant: bool) -> dict[str, Any]:
    if base_commit and head_commit and machine:
        mode = "commits"
        mb = mh = get_machine(session, machine)
        cb, ch = get_commit(session, base_commit), get_commit(session, head_commit)
    else:
        assert base_machine and head_machine and commit
        mode = "machines"
        mb, mh = get_machine(session, base_machine), get_machine(session, head_machine)
        cb = ch = get_commit(session, commit)
    ds_id = get_dataset(session, dataset).id if dataset else None
    metrics = [metric] if metric else [m for m in METRICS if m not in COUNT_METRICS]
    head_choice = choose_codecs(session, [Result.commit_id == ch.id,
                                          Result.machine_id == mh.id], None)
    wanted = (head_choice.shown or {}).get("series_key")
    try:
        base_choice = choose_codecs(session, [Result.commit_id == cb.id,
                                              Result.machine_id == mb.id], wanted)
    except NotFound:
        base_choice = choose_codecs(session, [Result.commit_id == cb.id,
                                              Result.machine_id == mb.id], None)
    base = _reference_side(session, cb.id, mb.id, ds_id, metrics, _codec_clause(base_choice))
    head = _reference_side(session, ch.id, mh.id, ds_id, metrics, _codec_clause(head_choice))
    keys = sorted(base.keys() & head.keys())
    conf_outs = dimcache.configurations(session, {k[1] for k in keys})
    names = dimcache.dataset_names(session, {k[0] for k in keys})
    conf_dicts = {cid: c.model_dump() for cid, c in conf_outs.items()}
    rows: list[dict[str, Any]] = []
    for key in keys:
        b, h = base[key], head[key]
        for met in metrics:
            evidence = None
            if met == "ratio":
                bv, hv = b[0], h[0]
                delta, significant = exact_change(bv, hv)
                regression = significant and (hv or 0) < (bv or 0)
            elif met == "compressed_bytes":
                bv, hv = _float(b[1]), _float(h[1])
                delta, significant = exact_change(bv, hv)
                regression = significant and (hv or 0) > (bv or 0)
            else:
                c = met == "compress_mbps"
                bv, hv = (b[2], h[2]) if c else (b[3], h[3])
                delta = delta_pct(bv, hv)
                # issue 32: two runs at different times, no A/B or counts seeded: no verdict
                significant = regression = False
                evidence = {"kind": "none"}
            if bv is None and hv is None:
                continue
            if only_significant and not significant:
                continue
            if delta is not None and not math.isfinite(delta):
                delta = None
            rows.append({
                "dataset": names[key[0]], "configuration": conf_dicts[key[1]], "metric": met,
                "base": bv, "head": hv, "delta_pct": delta,
                "significant": bool(significant), "regression": bool(regression),
                "evidence": evidence})
    def distinct(builds: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [b for i, b in enumerate(builds) if b not in builds[:i]]

    return {"base": CompareSide(
                commit=cb.sha, machine=machine_ref(mb), codecs=base_choice.shown,
                builds=distinct(_reference_builds(session, mb.id, cb.id, base_choice.ids)),
            ).model_dump(),
            "head": CompareSide(
                commit=ch.sha, machine=machine_ref(mh), codecs=head_choice.shown,
                builds=distinct(_reference_builds(session, mh.id, ch.id, head_choice.ids)),
            ).model_dump(),
            "rows": rows, "mode": mode}


# ---- the seeded database --------------------------------------------------------------

@pytest.fixture(scope="module")
def seeded(pg_admin_url: str) -> Iterator[str]:
    name = "bbtest_ref_" + uuid.uuid4().hex[:12]
    env = {k: v for k, v in os.environ.items() if not k.startswith("BASKETBENCH_")}
    env["BASKETBENCH_TEST_PG_ADMIN"] = pg_admin_url
    done = subprocess.run(
        [sys.executable, "-m", "bench.seed", "--database", name, "--commits", str(COMMITS),
         "--machines", str(MACHINES), "--datasets", str(DATASETS), "--configurations",
         str(CONFIGURATIONS), "--quiet"], cwd=REPO_ROOT, env=env, capture_output=True,
        text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    try:
        yield pg_admin_url.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://",
                                                      1) + "/" + name
    finally:
        with psycopg.connect(pg_admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _rare_documents(session: Session, settings: Settings, shas: list[str]) -> None:
    """A second run of a seeded commit with other values, one failed result (no speeds)
    and one result of size 0."""
    world = World(commits=COMMITS, machines=MACHINES, datasets=DATASETS,
                  configurations=CONFIGURATIONS, seed=1)
    doc = harness_document(world, 5, 0, shas[5])
    doc["results"][0].update(error="boom", compress_mbps=None, decompress_mbps=None,
                             roundtrip_ok=False)
    doc["results"][1].update(compressed_bytes=0, ratio=0.0)
    for r in doc["results"][2:]:
        for key in ("compress_mbps", "decompress_mbps"):
            r[key] = {**r[key], "median": r[key]["median"] * 1.2,
                      "samples": [x * 1.2 for x in r[key]["samples"]],
                      "max": r[key]["max"] * 1.2, "mean": r[key]["mean"] * 1.2}
    doc = json.loads(json.dumps(doc))
    out = ingest.ingest_harness(session, settings, doc, ingest.Target())
    assert not out.duplicate and out.results == DATASETS * CONFIGURATIONS


def _resolved(live: dict[str, Any]) -> dict[str, Any]:
    """History's answer in the reference's shape (issue 34 made the builds a list that
    points refer to by ``build_id``, and left a point's null ``codecs`` out)."""
    builds = {b["id"]: {k: v for k, v in b.items() if k != "id"} for b in live.pop("builds")}
    for i, p in enumerate(live["points"]):
        build_id = p.pop("build_id", None)
        codecs = p.pop("codecs", None)
        live["points"][i] = {**p, "codecs": codecs,
                             "build": builds[build_id] if build_id is not None else None}
    return live


def test_history_and_compare_answers_are_the_previous_bytes(seeded: str) -> None:
    settings = Settings(database_url=seeded)
    sessions = make_sessionmaker(make_engine(settings))
    with sessions() as session:
        shas = list(session.scalars(select(Commit.sha).order_by(Commit.order)))
        _rare_documents(session, settings, shas)
    with sessions() as session:
        names = sorted(session.scalars(select(Machine.name).distinct()))
        assert len(names) == MACHINES
    r = random.Random(13)
    checked = moved = 0
    with sessions() as session:
        dataset_names = sorted(dimcache.dataset_names(session, range(1, 100)).values())
        settings_ = sorted({c.setting for c in dimcache.configurations(
            session, range(1, 1000)).values()})
        for metric in METRICS:
            for machine in names:
                for dataset in dataset_names:
                    setting = r.choice(settings_)
                    for max_points in (2000, 10):
                        live = _resolved(history(session, machine, dataset, metric,
                                                 ConfigSelector(setting=setting), None, None,
                                                 max_points))
                        ref = _reference_history(session, machine, dataset, metric,
                                                 ConfigSelector(setting=setting), max_points)
                        assert orjson.dumps(live) == orjson.dumps(ref), (machine, dataset,
                                                                         metric, setting)
                        checked += 1
        for k in range(24):
            # Instruction counts (issue 23) are not in the reference's compare: their rows
            # are checked in tests/backend/results/test_instruction_metrics.py.
            metric = r.choice([None, *(m for m in METRICS if m not in COUNT_METRICS)])
            dataset = r.choice([None, *dataset_names])
            only = k % 3 == 0
            if k % 2:
                base_sha, head_sha = r.sample(shas, 2)
                if k % 4 == 1:
                    head_sha = shas[5]  # the commit with two runs
                args: tuple[Any, ...] = (base_sha, head_sha, r.choice(names), None, None,
                                         None)
            else:
                args = (None, None, None, names[0], names[-1], r.choice(shas[4:7]))
            live = compare(session, CompareRequest(*args, dataset=dataset, metric=metric,
                                                   only_significant=only), settings).answer()
            ref = _reference_compare(session, settings, *args, dataset, metric, only)
            # Added after the reference was taken (issue 9's picker): the series both sides
            # share, and compare in the newest of them where the reference took the head's
            # newest. Pairs whose choice moved are checked against the new rule instead.
            in_both = live.pop("codec_series", None)
            # Added since, by issue 25: the totals, counts and rule of the page and the
            # merged-row fields (None unless merged=true).
            for key in ("total", "offset", "counts", "rule"):
                live.pop(key, None)
            assert live.pop("ab") is None  # issue 32: no A/B seeded
            for row in live["rows"]:
                for key in ("base_bytes", "head_bytes", "delta_bytes", "base_ratio",
                            "head_ratio"):
                    assert row.pop(key, None) is None, key
            if (live["base"]["codecs"], live["head"]["codecs"]) != (
                    ref["base"]["codecs"], ref["head"]["codecs"]):
                keys = {(side["codecs"] or {}).get("series_key") for side in
                        (live["base"], live["head"])}
                # in a common series both sides are in it; with none, each shows its own
                assert not in_both or len(keys) == 1, (args, in_both, keys)
                moved += 1
                continue
            assert orjson.dumps(live) == orjson.dumps(ref), (args, dataset, metric, only)
            checked += 1
    assert moved < 12, moved
    assert checked + moved == len(METRICS) * len(names) * DATASETS * 2 + 24
