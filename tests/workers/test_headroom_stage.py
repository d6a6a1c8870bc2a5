"""The headroom stage (pipeline/headroomstage.py): the suite's [headroom] table, which layer a
commit is measured with, a sandboxed measurement of a real layer shared object against the bare
library, and the two upload envelopes (reference kind "bare") the API's own schema accepts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from basketbench.ab.schemas import AbUpload
from basketbench.measure.headroom import parse_document
from basketbench.measure.rzbench.runner import RzbenchNotFound, locate_rzbench
from basketbench_workers.config import WorkerSettings
from basketbench_workers.pipeline.abstage import AbSkipped
from basketbench_workers.pipeline.headroomstage import (
    layer_of,
    measure_headroom,
    summary,
    upload_bodies,
)
from basketbench_workers.pipeline.suites import HeadroomSpec, SuiteError, parse_suite
from basketbench_workers.sandbox import Sandbox, SandboxUnavailable

BASE = {"name": "s", "synthetic": ["event"],
        "corpora": [{"name": "hzz", "files": ["uproot-HZZ-zlib.root"]}]}


def test_the_suites_headroom_table_is_checked() -> None:
    spec = parse_suite({**BASE, "headroom": {"settings": [101, 505]}}, "s.toml").headroom
    assert spec is not None and spec.corpora == ("hzz",) and spec.pairs == 15
    assert parse_suite(BASE, "s.toml").headroom is None
    assert parse_suite({**BASE, "headroom": {"enabled": False}}, "s.toml").headroom is None
    for bad, reason in [({"corpus": "nanoaod"}, "must name a corpus of the suite"),
                        ({"settings": [301]}, "ROOT settings"),
                        ({"pairs": 2}, "'pairs'"),
                        ({"target_ms": 0}, "'target_ms'"),
                        ({"shots": 3}, "unknown key")]:
        with pytest.raises(SuiteError, match=reason):
            parse_suite({**BASE, "headroom": bad}, "s.toml")


def test_the_shipped_quick_suite_measures_the_headroom() -> None:
    from basketbench_workers.pipeline.suites import get_suite

    spec = get_suite("quick").headroom
    assert spec is not None and spec.corpora == ("hzz",)


def test_a_release_or_a_build_without_layer_is_skipped(tmp_path: Path) -> None:
    with pytest.raises(AbSkipped, match="its own codec copies"):
        layer_of(tmp_path, "6.40.00")
    with pytest.raises(AbSkipped, match="no loadable compression layer"):
        layer_of(None, None)
    with pytest.raises(AbSkipped, match="no layer/libbbzip.so"):
        layer_of(tmp_path, None)


def test_a_commits_layer_measured_sandboxed_and_its_uploads(tmp_path: Path) -> None:
    """A build entry holding a real layer (rootcompat as a shared object, as a per-commit build
    links ROOT's code): rzbench loads it in the worker's sandbox, the bare library writes its
    payloads, and both comparisons become uploads the API's schema accepts."""
    try:
        rzbench = locate_rzbench()
        Sandbox.for_settings(WorkerSettings()).check()
    except (RzbenchNotFound, SandboxUnavailable) as exc:
        pytest.skip(str(exc))
    shared = rzbench.parent / "librootcompat_rzip.so"
    if not shared.is_file():
        pytest.skip("rzbench's build has no librootcompat_rzip.so (a sanitizer build)")
    entry = tmp_path / "entry"
    (entry / "layer").mkdir(parents=True)
    shutil.copy(shared, entry / "layer" / "libbbzip.so")
    corpus = tmp_path / "data" / "tfloat.bbc"
    corpus.parent.mkdir()
    subprocess.run([str(rzbench), "synth", "tfloat", "-o", str(corpus)], check=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    log = tmp_path / "run.log"
    spec = HeadroomSpec(corpora=("tfloat",), settings=(101,), pairs=5, target_ms=2.0)
    doc = measure_headroom(layer_of(entry, None), corpus, spec, rzbench, scratch, log, 300,
                           sandboxed=True)
    parsed = parse_document(doc)
    assert parsed.framed["layer"].endswith("libbbzip.so")
    [result] = parsed.results
    assert result.roundtrip_ok and result.same_work
    assert len(summary(doc)) == 2
    bodies = upload_bodies(doc, 3, "0" * 40, "root-project/root", 7,
                           {"set": "host", "root_version": None, "libraries": {"zlib": "1"}})
    uploads = [AbUpload.model_validate(b) for b in bodies]
    assert [(u.reference.kind, u.reference.label) for u in uploads] == [
        ("bare", "bare library, reused context"), ("bare", "bare library, fresh context")]
    for upload, name in zip(uploads, ("headroom", "framing"), strict=True):
        [r] = upload.document.results
        assert r.compress.ratio == result.compress.model_dump()[name]["ratio"]
        assert r.compressed_bytes["a"] > r.compressed_bytes["b"]  # the frame's 9-byte headers
