"""The headroom stage: what ROOT's framing costs in this commit's build, measured after the
A/B (basketbench.measure.headroom, docs/perf/headroom.md).

The commit's layer (its framed R__zipMultipleAlgorithm / R__unzip) runs interleaved with the
bare codec library on the same buffers, in one rzbench process; the bare output is checked to
be the payload inside ROOT's block. Two comparisons are uploaded as A/B runs of the commit with
reference kind "bare" (POST /ab-runs): side A the framed path, side B the library with a reused
context ("headroom": what ROOT leaves on the table) or a fresh one per buffer ("framing": the
frame itself). Their effects B/A (time framed / time bare) form a series per machine like any
other, so the history shows when a commit changes what the framing costs.

A ROOT release measured by its id is skipped: its libCore carries its own codec copies while
the bare path calls this machine's libraries, so the two would not run the same code. Never
fails the run (its results are already stored); a skip or a refused upload is logged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from basketbench.measure.headroom.document import (
    AB_SIDES,
    HeadroomDocumentError,
    to_ab_document,
)

from basketbench_workers.agent.api_client import ApiError
from basketbench_workers.build.layer import LAYER_DIR, LAYER_NAME
from basketbench_workers.pipeline.ab_run import AbContext, Heartbeat, codecs_of, repository_of
from basketbench_workers.pipeline.abstage import (
    AbSkipped,
    Reference,
    run_child,
    say_to,
    upload_body,
)
from basketbench_workers.pipeline.suites import HeadroomSpec


def layer_of(build_entry: Path | None, release: str | None) -> Path:
    """The commit's layer shared object; AbSkipped with the reason when there is none."""
    if release is not None:
        raise AbSkipped(f"commit is ROOT release {release}: its libCore runs its own codec "
                        "copies, the bare library here is another build")
    if build_entry is None:
        raise AbSkipped("this commit's build has no loadable compression layer")
    layer = build_entry / LAYER_DIR / LAYER_NAME
    if not layer.is_file():
        raise AbSkipped(f"this commit's build has no {LAYER_DIR}/{LAYER_NAME}")
    return layer


def measure_headroom(layer: Path, corpus: Path, spec: HeadroomSpec, rzbench: Path,
                     scratch: Path, log_path: Path, seconds: float,
                     sandboxed: bool = True) -> dict[str, Any]:
    """The basketbench-headroom-v1 document of `layer` on `corpus`, measured by
    headroomchild.py in a child process group killed at `seconds` (AbSkipped with the reason
    when it fails or overruns); with `sandboxed` its rzbench runs in the worker's sandbox,
    reading only its own folder, the layer's and the corpus's."""
    request = scratch / "headroom-request.json"
    out = scratch / "headroom.json"
    out.unlink(missing_ok=True)
    readable = sorted({str(rzbench.resolve().parent), str(layer.resolve().parent),
                       str(corpus.resolve().parent)})
    request.write_text(json.dumps({
        "layer": str(layer), "corpus": str(corpus), "settings": list(spec.settings),
        "pairs": spec.pairs, "target_ms": spec.target_ms, "rzbench": str(rzbench),
        "out": str(out), "scratch": str(scratch),
        "sandbox": readable if sandboxed else None}))
    say_to(log_path)(f"headroom: {layer} against the bare library, settings "
                     f"{list(spec.settings)}, {spec.pairs} slots, corpus {corpus.name}, "
                     f"limit {seconds:.0f} s")
    return run_child("basketbench_workers.pipeline.headroomchild", request, out, seconds,
                     log_path, "headroom", "the headroom")


def summary(doc: dict[str, Any]) -> list[str]:
    """One log line per (dataset, setting, direction): the three ratios."""
    lines = []
    for r in doc.get("results", []):
        for direction in ("compress", "decompress"):
            parts = []
            for name in ("headroom", "framing", "context"):
                e = r[direction][name]
                parts.append(f"{name} -" if e["ratio"] is None else
                             f"{name} {e['ratio']:.3f} [{e['ci_low']:.3f}, {e['ci_high']:.3f}]")
            lines.append(f"headroom: {r['dataset']} {r['setting']} {direction}: "
                         + ", ".join(parts) + ("" if r["same_work"] else " (NOT the same work)"))
    return lines


def upload_bodies(doc: dict[str, Any], machine_id: int, commit: str, repository: str | None,
                  run_id: int | None, codecs: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The POST /ab-runs envelopes of a headroom document: one per comparison."""
    bodies = []
    for comparison, (label, path) in AB_SIDES.items():
        reference = Reference("bare", None, label, f"bare:{path}")
        bodies.append(upload_body(to_ab_document(doc, comparison), machine_id, commit,
                                  repository, run_id, reference, "pipeline", codecs))
    return bodies


def pipeline_headroom(ctx: AbContext, corpus_files: dict[str, Path], document: Path,
                      beat: Heartbeat) -> None:
    """After the A/B: measure the commit's headroom and upload it, or log why not (never
    raises for a skip or a refused upload: the run's results are already stored)."""
    spec = ctx.suite.headroom
    assert spec is not None
    say = say_to(ctx.log_path)
    # within the A/B stage's budget (the run's time limit counts that one)
    seconds = min(spec.timeout_seconds, ctx.settings.stage_timeout("ab"))
    try:
        layer = layer_of(ctx.build.entry, ctx.release)
        doc = measure_headroom(layer, corpus_files[spec.corpora[0]], spec, ctx.build.rzbench,
                               ctx.workdir, ctx.log_path, seconds, ctx.sandboxed)
        for line in summary(doc):
            say(line)
        bodies = upload_bodies(doc, ctx.machine_id, ctx.sha, repository_of(ctx.run),
                               int(ctx.run["id"]), codecs_of(document))
    except (AbSkipped, HeadroomDocumentError) as exc:
        say(f"headroom: skipped: {exc}")
        return
    beat.beat()  # a run requeued meanwhile belongs to its new attempt
    beat.check()
    for body in bodies:
        try:
            answer = ctx.api.post_ab_run(body)
        except ApiError as exc:
            say(f"headroom: upload refused: {exc}")
            return
        say(f"headroom: uploaded ({body['reference']['label']}): {json.dumps(answer)}")
