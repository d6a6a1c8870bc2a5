"""An advise run (suite "advise"): `basketbench advise` on a file under this worker's data root.

No checkout and no build of a commit: the worker's own default rzbench measures the file. The
run's stage and progress go through the run's ordinary fields (extract, sizes, speeds mapped
onto 0..1); the advice document is uploaded once, at the end."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from basketbench.measure.advise.advisor import AdviseError, AdviseOptions, advise
from basketbench.measure.rzbench.runner import RzbenchError

from basketbench_workers.agent.api_client import ApiClient
from basketbench_workers.agent.reporting import RunReporter
from basketbench_workers.config import WorkerSettings
from basketbench_workers.procs import StageFailed

# Share of the run's progress bar each advise stage fills (sizes and speeds dominate).
_WEIGHTS = {"extract": (0.0, 0.1), "sizes": (0.1, 0.6), "speeds": (0.6, 1.0)}


def one_line(exc: BaseException, names: dict[str, str]) -> str:
    """An exception's first line, with the paths in ``names`` replaced by what the user
    called them."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    for path, name in names.items():
        text = text.replace(path, name)
    return text[:500]


def resolve_in_data_root(data_root: Path | None, relative: str) -> Path:
    """The file `relative` names under `data_root`; never a file outside it."""
    if data_root is None:
        raise StageFailed("this worker has no data root: set BASKETBENCH_DATA_ROOT to advise "
                          "on its files")
    root = data_root.resolve()
    target = (root / relative).resolve()
    if not target.is_relative_to(root):
        raise StageFailed(f"path {relative!r} leaves the data root")
    if not target.is_file():
        raise StageFailed(f"path {relative!r}: no such file under the data root")
    return target


def run_advise(
    run_id: int,
    api: ApiClient,
    settings: WorkerSettings,
    reporter: RunReporter,
    rzbench: Callable[[], Path],
    log_path: Path,
    before_upload: Callable[[], None],
) -> dict[str, Any]:
    """Advise on the run's file and upload the document; returns it."""
    relative = api.get_advice_path(run_id)
    target = resolve_in_data_root(settings.data_root, relative)
    binary = rzbench()
    reporter.stage("advise")
    with log_path.open("a") as fh:  # run logs are public: the data root's name, not its path
        fh.write(f"advise {relative} ({target.stat().st_size} bytes) with rzbench "
                 f"{binary.name}\n")

    def progress(stage: str, done: int, total: int) -> None:
        lo, hi = _WEIGHTS.get(stage, (0.0, 1.0))
        reporter.progress(lo + (hi - lo) * (done / total if total > 0 else 1.0))

    try:
        # this worker's recent advise speeds per build: the CPU term from their median
        options = AdviseOptions(rzbench=binary,
                                speed_history=settings.worker_dir / "advise-speeds.jsonl")
        document = advise(target, options, progress)
    except (AdviseError, RzbenchError, ValueError, OSError) as exc:
        # Not ROOT, empty, truncated, unreadable (ExtractionError and the other readers'
        # errors are ValueErrors): the run fails with the reader's one-line reason, the
        # file named as the user gave it.
        raise StageFailed(one_line(exc, {str(target): relative})) from exc
    before_upload()
    reporter.stage("upload")
    api.put_advice(run_id, document)
    with log_path.open("a") as fh:
        fh.write(f"advice uploaded: {document['summary']}\n")
    return document
