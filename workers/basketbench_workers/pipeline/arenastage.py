"""The codec arena stage: after a run's benchmark, on a suite with an `[arena]` table, the
candidate codecs (zlib-ng, libdeflate, zstd with a reused context, ...) measured on real ROOT
files against the commit's own build as ROOT's reference layer (its layer/libbbzip.so), one
`basketbench-arena-v1` document per file uploaded to POST /arena-runs with the commit. So a
candidate's advantage is a series over ROOT commits, as ROOT and the libraries move.

The reference layer is the commit's code: the measurement runs in a child process
(arenachild.py) whose rzbench runs through the worker's sandbox, as the A/B stage's does,
and the child's process group is killed at the stage's limit. The stage never fails the
run (its results are already stored): a file that cannot be measured is skipped with the
reason in the run log.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from basketbench_workers.agent.api_client import ApiError
from basketbench_workers.pipeline.ab_run import AbContext, Heartbeat, repository_of
from basketbench_workers.pipeline.abstage import AbSkipped, run_child, say_to
from basketbench_workers.pipeline.suites import ArenaSpec


class ArenaSkipped(Exception):
    """No arena document for this file; the message says why."""


def root_file(name: str) -> Path:
    """The ROOT file of that base name among the files the measurement library knows."""
    from basketbench.measure.rootio import default_root_files

    found = {p.name: p for p in default_root_files()}
    if name not in found:
        raise ArenaSkipped(f"{name} is not among this machine's ROOT files "
                           f"({', '.join(sorted(found)[:8])}, ...)")
    return found[name]


def sandbox_readable(reference: str, file: Path, rzbench: Path, cache: Path) -> list[str]:
    """What a sandboxed rzbench reads in the arena: its binary's folder, ROOT's reference
    layer (the build's folder), the candidates' built layers (the arena cache) and the file
    (its buffers are extracted into the child's scratch folder, which it also writes)."""
    paths = {rzbench.resolve().parent, file.resolve().parent, cache}
    if not reference.startswith("release:") and reference != "host":
        paths.add(Path(reference).resolve())
    return sorted(str(p) for p in paths)


def arena_cache() -> Path:
    """Where the candidates' sources and built layers are kept (shared by the worker's runs)."""
    base = os.environ.get("BASKETBENCH_CACHE_DIR")
    return (Path(base) if base else Path.home() / ".cache" / "basketbench") / "arena"


def measure(file: Path, reference: str, spec: ArenaSpec, rzbench: Path, scratch: Path,
            log_path: Path, seconds: float, sandboxed: bool) -> dict[str, Any]:
    """The arena document of `file` against `reference`, measured by arenachild.py in a
    child process group killed at `seconds`; ArenaSkipped with the reason otherwise."""
    cache = arena_cache()
    request = scratch / "arena-request.json"
    out = scratch / "arena.json"
    out.unlink(missing_ok=True)
    request.write_text(json.dumps({
        "file": str(file), "reference": reference, "rzbench": str(rzbench),
        "candidates": list(spec.candidates) if spec.candidates is not None else None,
        "pairs": spec.pairs, "shape_pairs": spec.shape_pairs, "target_ms": spec.target_ms,
        "cache": str(cache), "out": str(out), "scratch": str(scratch),
        "sandbox": sandbox_readable(reference, file, rzbench, cache) if sandboxed else None}))
    say = say_to(log_path)
    say(f"arena: {file.name} against ROOT's layer {reference}, candidates "
        f"{','.join(spec.candidates) if spec.candidates else 'all'}, {spec.pairs} pairs, "
        f"limit {seconds:.0f} s")
    try:
        return run_child("basketbench_workers.pipeline.arenachild", request, out, seconds,
                         log_path, f"arena: {file.name}", "the arena")
    except AbSkipped as exc:
        raise ArenaSkipped(str(exc)) from None


def summary(doc: dict[str, Any]) -> list[str]:
    """One log line per whole-file result: size change and speed ratios against ROOT."""
    lines = []
    for r in doc.get("results", []):
        def ratio(value: dict[str, Any] | None) -> str:
            if not value or value.get("median") is None:
                return "-"
            return f"{value['median']:.3f} [{value['ci_low']:.3f}, {value['ci_high']:.3f}]"
        size = r.get("size_change_pct")
        lines.append(f"arena: {r['candidate']} {r['level']} vs {r['reference_setting']}: size "
                     + (f"{size:+.2f} %" if size is not None else "-")
                     + f", compress x{ratio(r.get('compress_ratio'))}, decompress "
                     f"x{ratio(r.get('decompress_ratio'))}, round trip "
                     f"{'ok' if r.get('roundtrip_ok') else 'FAILED'}, ROOT reads it: "
                     f"{'yes' if r.get('root_readable') else 'no'}")
    load = doc.get("load") or {}
    lines.append(f"arena: load {load.get('loadavg_start')} -> {load.get('loadavg_end')}")
    return lines


def upload_body(doc: dict[str, Any], machine_id: int, commit: str, repository: str | None,
                run_id: int | None) -> dict[str, Any]:
    """The POST /arena-runs envelope (backend arena/schemas.py)."""
    body: dict[str, Any] = {"machine_id": machine_id, "commit": commit, "run_id": run_id,
                            "document": doc}
    if repository:
        body["repository"] = repository
    return body


def pipeline_arena(ctx: AbContext, spec: ArenaSpec, beat: Heartbeat) -> None:
    """Every file of the suite's `[arena]`, each its own document and upload."""
    say = say_to(ctx.log_path)
    reference = ctx.side_b  # the commit's own build: ROOT's current choice, as committed
    if reference is None:
        say("arena: skipped: this commit's build has no loadable compression layer (its "
            "profile compiles none, or linking it failed: see above)")
        return
    seconds = min(spec.timeout_seconds, ctx.settings.stage_timeout("arena"))
    deadline = time.monotonic() + seconds
    for name in spec.files:
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise ArenaSkipped(f"the stage's limit of {seconds:.0f} s is spent")
            doc = measure(root_file(name), reference, spec, ctx.build.rzbench, ctx.workdir,
                          ctx.log_path, left, ctx.sandboxed)
        except ArenaSkipped as exc:
            say(f"arena: {name} skipped: {exc}")
            continue
        for line in summary(doc):
            say(line)
        beat.beat()  # a run requeued meanwhile belongs to its new attempt
        beat.check()
        try:
            answer = ctx.api.post_arena_run(upload_body(
                doc, ctx.machine_id, ctx.sha, repository_of(ctx.run), int(ctx.run["id"])))
        except ApiError as exc:  # a refused document: the run's results stand
            say(f"arena: {name} upload refused: {exc}")
            continue
        say(f"arena: uploaded: {json.dumps(answer)}")
