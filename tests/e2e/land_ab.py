"""Browser tests: the worker's side of an A/B request (POST /ab-requests), so the compare
page can be seen following it until its result lands.

Stands in for the A/B stage of a worker (workers/, `basketbench ab` + the ab-runs upload):
stores one ab_runs row for the request's run, as that upload stores it, with an effect per
(dataset, configuration, speed metric) that side B measured on the machine, and marks the
run succeeded. The effects are the ones `make demo`'s releases show interleaved: LZMA
decompression 1.65x faster in 6.40.00 (xz 5.2.4 -> 5.8.2), everything else equal within
its interval. Prints {"ab_run_id": N}.

    python tests/e2e/land_ab.py --database-url URL --run-id N
"""

from __future__ import annotations

import argparse
import json

from basketbench.core.config import Settings
from basketbench.core.db import make_engine, make_sessionmaker
from basketbench.models import AbEffect, AbRequest, AbRun, Configuration, Machine, Result, Run
from basketbench.models.base import utcnow
from sqlalchemy import select

PAIRS = 30


def effect(setting: int, metric: str) -> tuple[float, float, float]:
    """(ratio, ci_low, ci_high) of B over A."""
    if setting // 100 == 2 and metric == "decompress_mbps":
        return 1.65, 1.61, 1.69
    return 1.0, 0.994, 1.006


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--database-url", required=True)
    ap.add_argument("--run-id", type=int, required=True)
    args = ap.parse_args()
    sessions = make_sessionmaker(make_engine(Settings(database_url=args.database_url)))
    with sessions() as session:
        run = session.get(Run, args.run_id)
        request = session.get(AbRequest, args.run_id)
        assert run is not None and request is not None, "not an A/B request"
        machine_id = request.machine_id or session.scalar(
            select(Machine.id).where(Machine.tag == run.tag).order_by(Machine.id))
        assert machine_id is not None
        ab = AbRun(run_id=run.id, machine_id=machine_id, commit_id=request.commit_id,
                   reference_kind=request.reference_kind,
                   reference_commit_id=request.reference_commit_id, origin=request.origin,
                   disturbed_fraction=0.03,
                   method={"order": "ABBA", "ratio": "median of per-pair B/A speed ratios",
                           "ci": "distribution-free interval of the median",
                           "confidence": 0.95,
                           "disturbed_rule": "thread CPU time < 90 % of wall time",
                           "repetitions_per_pair": 1},
                   load={"loadavg_start": [4.2, 4.0, 3.1], "loadavg_end": [4.6, 4.1, 3.2]})
        session.add(ab)
        session.flush()
        measured = session.execute(
            select(Result.dataset_id, Result.configuration_id, Configuration.setting)
            .join(Configuration, Configuration.id == Result.configuration_id)
            .where(Result.commit_id == request.commit_id, Result.machine_id == machine_id,
                   Configuration.setting > 0).distinct()).all()
        for dataset_id, configuration_id, setting in measured:
            for metric in ("compress_mbps", "decompress_mbps"):
                ratio, low, high = effect(setting, metric)
                session.add(AbEffect(ab_run_id=ab.id, dataset_id=dataset_id,
                                     configuration_id=configuration_id, metric=metric,
                                     ratio=ratio, ci_low=low, ci_high=high, pairs=PAIRS,
                                     disturbed_pairs=1, samples=[ratio] * PAIRS))
        run.status, run.progress, run.finished_at = "succeeded", 1.0, utcnow()
        session.commit()
        print(json.dumps({"ab_run_id": ab.id}))


if __name__ == "__main__":
    main()
