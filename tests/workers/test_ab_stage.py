"""The A/B stage's choices without processes: which reference a commit is measured against,
the suite's [ab] table, two distinct layer files for one build, and the upload envelope the
API accepts (its own schema checks it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from basketbench.ab.schemas import AbUpload
from basketbench_workers.pipeline.abstage import (
    AbSkipped,
    Reference,
    distinct_sides,
    pipeline_reference,
    upload_body,
)
from basketbench_workers.pipeline.suites import AbSpec, SuiteError, parse_suite

SPEC = AbSpec(corpora=("hzz",), settings=(101,), reference_release=None)
ANCESTORS = ["1" * 40, "2" * 40, "3" * 40]


def test_the_parents_cached_build_comes_first(tmp_path: Path) -> None:
    builds = {"1" * 40: tmp_path / "p", "3" * 40: tmp_path / "q"}
    ref = pipeline_reference("0" * 40, SPEC, ANCESTORS, builds.get)
    assert ref == Reference("parent", "1" * 40, "1" * 12, str(tmp_path / "p"))


def test_else_the_nearest_measured_ancestor(tmp_path: Path) -> None:
    asked: list[str] = []

    def build_dir_of(sha: str) -> Path | None:
        asked.append(sha)
        return tmp_path / "q" if sha == "3" * 40 else None

    ref = pipeline_reference("0" * 40, SPEC, ANCESTORS, build_dir_of)
    assert ref.kind == "previous" and ref.commit == "3" * 40 and asked == ANCESTORS


def test_no_reference_is_a_skip_with_its_reason() -> None:
    with pytest.raises(AbSkipped, match="no reference build for 000000000000: it has no parent"):
        pipeline_reference("0" * 40, SPEC, [], lambda _sha: None)
    unknown = AbSpec(corpora=("hzz",), settings=(101,), reference_release="9.99.99")
    with pytest.raises(AbSkipped, match="neither its parent nor the 2 commits before it.*"
                                        "release 9.99.99 is not installed here"):
        pipeline_reference("0" * 40, unknown, ANCESTORS, lambda _sha: None)
    with pytest.raises(AbSkipped, match="is ROOT release 6.40.00"):
        pipeline_reference("0" * 40, unknown, [], lambda _sha: None, own_release="6.40.00")


def test_one_build_on_both_sides_gets_a_copy_of_its_layer(tmp_path: Path) -> None:
    build = tmp_path / "entry"
    (build / "layer").mkdir(parents=True)
    (build / "layer" / "libbbzip.so").write_bytes(b"\x7fELF layer")
    (build / "layer" / "layer.json").write_text("{}")
    ref = distinct_sides(Reference("parent", "1" * 40, "p", str(build)), str(build), tmp_path)
    assert ref.build != str(build) and ref.kind == "parent"
    assert (Path(ref.build) / "layer" / "libbbzip.so").read_bytes() == b"\x7fELF layer"
    other = Reference("parent", "1" * 40, "p", str(tmp_path / "other"))
    assert distinct_sides(other, str(build), tmp_path) is other
    release = Reference("release", None, "6.38.00", "release:6.38.00")
    assert distinct_sides(release, str(build), tmp_path) is release


def test_the_suites_ab_table_is_checked() -> None:
    base = {"name": "s", "synthetic": ["event"],
            "corpora": [{"name": "hzz", "files": ["uproot-HZZ-zlib.root"]}]}
    spec = parse_suite({**base, "ab": {"settings": [101, 505]}}, "s.toml").ab
    assert spec is not None and spec.corpora == ("hzz",) and spec.pairs == 21
    assert parse_suite(base, "s.toml").ab is None
    assert parse_suite({**base, "ab": {"enabled": False}}, "s.toml").ab is None
    for bad, reason in [({"corpora": ["nanoaod"]}, "must name corpora of the suite"),
                        ({"settings": [1234]}, "ROOT settings"),
                        ({"pairs": 2}, "'pairs'"),
                        ({"shots": 3}, "unknown key")]:
        with pytest.raises(SuiteError, match=reason):
            parse_suite({**base, "ab": bad}, "s.toml")


def test_the_upload_envelope_is_what_the_api_accepts() -> None:
    estimate = {"ratio": 0.98, "ci_low": 0.975, "ci_high": 0.985, "pairs": 3,
                "disturbed_pairs": 0, "samples": [0.976, 0.98, 0.984]}
    doc = {"schema": "basketbench-ab-v1",
           "a": {"build": "/c/a", "label": "a", "codec_versions": {}},
           "b": {"build": "/c/b", "label": "b", "codec_versions": {}},
           "method": {"order": "ABBA", "ratio": "median", "ci": "order statistics",
                      "confidence": 0.95, "disturbed_rule": "cpu/wall", "repetitions_per_pair": 1},
           "load": {"loadavg_start": [1, 1, 1], "loadavg_end": [1, 1, 1]},
           "disturbed_fraction": 0.0,
           "results": [{"dataset": "hzz", "setting": 101, "roundtrip_ok": True,
                        "compressed_bytes": {"a": 1, "b": 1},
                        "compress": estimate, "decompress": estimate}]}
    for ref in (Reference("parent", "1" * 40, "p", "/c/a"),
                Reference("release", None, "6.38.00", "release:6.38.00")):
        body = upload_body(doc, 3, "0" * 40, "root-project/root", 7, ref, "pipeline",
                           {"set": "host", "root_version": None, "libraries": {"zlib": "1"}})
        parsed = AbUpload.model_validate(body)
        assert parsed.reference.kind == ref.kind and parsed.run_id == 7


def test_the_measurement_of_a_commits_build_runs_rzbench_sandboxed(tmp_path: Path) -> None:
    """abstage.measure with `sandboxed`: the child runs `rzbench ab` through the worker's
    sandbox (bwrap, no network, an allow-listed environment), reading only the folders
    sandbox_readable names, and still gives the document."""
    import subprocess

    from basketbench.measure.rzbench.runner import RzbenchNotFound, locate_rzbench
    from basketbench_workers.pipeline.abstage import measure, sandbox_readable
    from basketbench_workers.sandbox import Sandbox, SandboxUnavailable

    try:
        rzbench = locate_rzbench()
        from basketbench_workers.config import WorkerSettings

        Sandbox.for_settings(WorkerSettings()).check()
    except (RzbenchNotFound, SandboxUnavailable) as exc:
        pytest.skip(str(exc))
    corpus = tmp_path / "data" / "tsmall.bbc"
    corpus.parent.mkdir()
    subprocess.run([str(rzbench), "synth", "tsmall", "-o", str(corpus)], check=True)
    readable = sandbox_readable("host", "host", corpus, rzbench)
    assert readable == sorted({str(rzbench.resolve().parent), str(corpus.parent)})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    log = tmp_path / "run.log"
    spec = AbSpec(corpora=("tsmall",), settings=(101,), pairs=3, target_ms=2.0)
    doc = measure("host", "host", corpus, spec, rzbench, scratch, log, 300, sandboxed=True)
    assert doc["schema"] == "basketbench-ab-v1" and len(doc["results"]) == 1
    assert doc["results"][0]["roundtrip_ok"] is True
    assert doc["results"][0]["compress"]["pairs"] + doc["results"][0]["compress"][
        "disturbed_pairs"] == 3


def test_under_auto_an_ancestor_is_looked_up_under_the_profile_its_own_tree_selects(
        tmp_path: Path) -> None:
    """A history crossing a layout change (ROOT 6.14's vanilla zlib -> 6.18's Cloudflare
    zlib, as `basketbench replay` writes it): the parent's cached build is the one made with
    the parent's profile, not with the commit's."""
    from basketbench_workers.build.gitmirror import Mirror
    from basketbench_workers.build.profiles import load_profiles
    from basketbench_workers.config import WorkerSettings
    from basketbench_workers.pipeline.stages import _profile_of

    from .gitrepo import commit_files, init_repo

    repo = init_repo(tmp_path / "root")
    legacy = commit_files(repo, {"core/zip/src/RZip.cxx": "// 6.14\n",
                                 "builtins/zlib/deflate.c": "/* vanilla */\n"}, "6.14")
    cloudflare = commit_files(repo, {"builtins/zlib/deflate_cf.c": "/* cloudflare */\n"},
                              "6.18")
    mirror = Mirror(str(repo), repo / ".git")
    profiles = load_profiles(None)
    run_profile = profiles["root-cloudflare-nozstd"]
    auto = WorkerSettings(profile="auto")
    assert _profile_of(profiles, auto, run_profile, mirror, cloudflare).name == \
        "root-cloudflare-nozstd"
    assert _profile_of(profiles, auto, run_profile, mirror, legacy).name == "root-legacy-zlib"
    # a profile named by the operator holds for every commit
    named = WorkerSettings(profile="root-cloudflare-nozstd")
    assert _profile_of(profiles, named, run_profile, mirror, legacy) is run_profile
