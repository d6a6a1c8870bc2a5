"""The detection benchmark through the service itself: planted histories ingested into
a fresh PostgreSQL database (results/ingest), screened by the service's own pass
(changes/detection/queue.drain_machine: its history loading, segments, rerun budget,
rescreens), and the confirmation loop closed: every rerun the service queues is
answered at once with a document drawn from the truth (run-level and within-run noise)
and ingested with its run id, as a worker uploads it. So its rerun figures describe the
service, not the simulator.

    .venv/bin/python -m bench.detection_quality --service noise --commits 300

42 speed series (3 datasets x 7 configurations x compress/decompress) on one machine.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import func, select

from bench.seed import DEFAULT_ADMIN, create_database, database_url, drop_database, migrate
from bench.world import REPOSITORY, SAMPLES, World

DATASETS, CONFIGURATIONS = 3, 7
SERIES = DATASETS * CONFIGURATIONS * 2  # compress and decompress speed of each row


@dataclass
class ServiceRun:
    commits: int
    reruns_by_commit: list[int] = field(default_factory=list)
    candidates_by_commit: list[int] = field(default_factory=list)
    states: dict[str, int] = field(default_factory=dict)
    changes: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def per_50(self, values: list[int]) -> list[int]:
        return [sum(values[i:i + 50]) for i in range(0, len(values), 50)]

    def summary(self) -> dict[str, Any]:
        reruns = sum(self.reruns_by_commit)
        return {"commits": self.commits, "reruns": reruns,
                "reruns_per_commit": round(reruns / max(1, self.commits), 3),
                "reruns_per_50_commits": self.per_50(self.reruns_by_commit),
                "candidates_per_50_commits": self.per_50(self.candidates_by_commit),
                "states": self.states, "seconds": round(self.seconds, 1)}


def _speed(values: np.ndarray) -> dict[str, Any]:
    s = np.sort(values)
    mean, std = float(s.mean()), float(s.std(ddof=1))
    return {"median": float(np.median(s)), "min": float(s[0]), "max": float(s[-1]),
            "mean": mean, "stddev": std, "cv": std / mean, "samples": s.tolist()}


class Documents:
    """Documents of one machine whose speeds follow ``level`` (series x commits)."""

    def __init__(self, level: np.ndarray, cv: float, run_share: float, seed: int) -> None:
        self.world = World(commits=level.shape[1], machines=1, datasets=DATASETS,
                           configurations=CONFIGURATIONS)
        self.level, self.cv, self.run_share = level, cv, run_share
        self.rng = np.random.default_rng(seed)
        self.machine = self.world.machine_list()[0]
        self.datasets = self.world.dataset_list()
        self.confs = self.world.configuration_list()
        self.shas = [uuid.UUID(int=seed * 10**6 + t).hex + "0" * 8 for t in range(level.shape[1])]

    def _run(self, true: float) -> np.ndarray:
        between = self.cv * math.sqrt(self.run_share)
        within = self.cv * math.sqrt(1 - self.run_share)
        run = true * (1 + self.rng.normal(0, between))
        return np.asarray(run * (1 + self.rng.normal(0, within, SAMPLES)))

    def document(self, t: int, run_id: int | None = None) -> dict[str, Any]:
        results = []
        for d_i, ds in enumerate(self.datasets):
            for c_i, c in enumerate(self.confs):
                row = d_i * len(self.confs) + c_i
                ratio = 2.0 + 0.25 * c_i
                results.append({
                    "dataset": ds["name"], "codec": c.codec, "setting": c.setting,
                    "algorithm": c.algorithm, "level": c.level,
                    "preconditioner": c.preconditioner, "dictionary_size": 0,
                    "dictionary_train_ms": None, "basket_size": c.basket_size, "mode": c.mode,
                    "threads": c.threads, "uncompressed_bytes": ds["bytes"],
                    "compressed_bytes": int(ds["bytes"] / ratio),
                    "ratio": ds["bytes"] / int(ds["bytes"] / ratio),
                    "compress_mbps": _speed(self._run(100.0 * self.level[2 * row, t])),
                    "decompress_mbps": _speed(self._run(500.0 * self.level[2 * row + 1, t])),
                    "roundtrip_ok": True, "error": None})
        context: dict[str, Any] = {"repository": REPOSITORY, "commit": self.shas[t],
                                   "machine": self.machine["name"], "tag": self.machine["tag"]}
        if run_id is not None:
            context["run_id"] = run_id
        return {"schema_version": "1", "tool": {"name": "rzbench", "version": "0.1.0"},
                "created_at": datetime.now(UTC).isoformat(timespec="seconds")
                .replace("+00:00", "Z"),
                "backend": "rootcompat", "root_commit": None, "context": context,
                "machine": self.machine["fingerprint"],
                "parameters": {"min_samples": SAMPLES, "target_pass_ms": 50.0,
                               "interleaved": True},
                "datasets": [{k: d[k] for k in ("name", "source", "bytes", "baskets",
                                                "checksum")} for d in self.datasets],
                "results": results}


def run_service(level: np.ndarray, cv: float, run_share: float = 0.5, seed: int = 1,
                admin: str = DEFAULT_ADMIN, answer_reruns: bool = True,
                **settings_overrides: Any) -> ServiceRun:
    """Ingest every commit of ``level`` through the service and screen it; answer each
    queued rerun at once (``answer_reruns``), as a worker on the tag would."""
    from basketbench.changes.detection.queue import drain_machine
    from basketbench.core.config import Settings
    from basketbench.core.db import make_engine, make_sessionmaker
    from basketbench.models import Change, Commit, Machine, Run
    from basketbench.results import ingest
    from basketbench.web import guards

    name = "bb_changes_" + uuid.uuid4().hex[:12]
    create_database(admin, name)
    url = database_url(admin, name, driver=True)
    out = ServiceRun(level.shape[1])
    try:
        migrate(url)
        settings = Settings(database_url=url, dispatch="none", **settings_overrides)
        engine = make_engine(settings)
        factory = make_sessionmaker(engine)
        docs = Documents(level, cv, run_share, seed)
        by_sha = {sha: t for t, sha in enumerate(docs.shas)}
        answered: set[int] = set()
        started = time.perf_counter()

        def ingest_doc(doc: dict[str, Any]) -> int:
            with factory() as session:
                ingest.ingest_harness(session, settings, guards.loads(json.dumps(doc).encode()),
                                      ingest.Target())
                machine_id = session.scalar(select(Machine.id).where(
                    Machine.name == docs.machine["name"]))
                assert machine_id is not None
                return int(machine_id)

        for t in range(level.shape[1]):
            with factory() as session:
                before = session.scalar(select(func.count()).select_from(Run).where(
                    Run.trigger == "confirm")) or 0
                changes_before = session.scalar(select(func.count()).select_from(Change)
                                                .where(Change.kind == "speed")) or 0
            drain_machine(factory, settings, ingest_doc(docs.document(t)))
            while answer_reruns:
                with factory() as session:
                    queued = [(r.id, r.commit_id) for r in session.scalars(
                        select(Run).where(Run.trigger == "confirm", Run.status == "queued")
                        .order_by(Run.id)) if r.id not in answered]
                    commit_sha = dict(session.execute(select(Commit.id, Commit.sha)).all())
                if not queued:
                    break
                for run_id, commit_id in queued:
                    answered.add(run_id)
                    truth_t = by_sha[commit_sha[commit_id]]
                    drain_machine(factory, settings, ingest_doc(docs.document(truth_t, run_id)))
            with factory() as session:
                after = session.scalar(select(func.count()).select_from(Run).where(
                    Run.trigger == "confirm")) or 0
                changes_after = session.scalar(select(func.count()).select_from(Change)
                                               .where(Change.kind == "speed")) or 0
            out.reruns_by_commit.append(int(after - before))
            out.candidates_by_commit.append(int(changes_after - changes_before))
        out.seconds = time.perf_counter() - started
        with factory() as session:
            states: dict[str, int] = defaultdict(int)
            for ch, sha in session.execute(select(Change, Commit.sha).join(
                    Commit, Commit.id == Change.commit_id)):
                states[f"{ch.kind}:{ch.state}"] += 1
                out.changes.append({"kind": ch.kind, "state": ch.state, "test": ch.test,
                                    "commit": by_sha.get(sha), "delta_pct": ch.delta_pct,
                                    "series": (ch.dataset_id, ch.configuration_id, ch.metric),
                                    "reason": ch.state_reason})
            out.states = dict(states)
        engine.dispose()
    finally:
        drop_database(admin, name)
    return out
