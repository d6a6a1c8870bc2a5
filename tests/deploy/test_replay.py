"""`basketbench replay --quick` from the command line: ROOT's real released compression
sources (cppyy-cling sdists 6.14.0.0, 6.14.2.1, 6.18.0.0) and the 6.38.00 / 6.40.00 wheels as
a git history, measured by the embedded worker (the Celery task code run in the API
process) and screened by detection; the changes it writes name ROOT's known events.

Downloads (sdists ~50 MB each, wheels ~250 MB each) and builds are cached under
~/.cache/basketbench (or BASKETBENCH_CACHE_DIR); the database is a fresh SQLite in tmp.
Asserted are only exact metrics and instruction counts, never speeds.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from .test_demo import clean_env, free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(3600)]


def test_the_quick_replay_finds_cloudflare_zlib_and_the_codec_updates_of_6_40(
        tmp_path: Path) -> None:
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("ROOT release wheels exist for x86_64 Linux only")
    out = tmp_path / "replay.json"
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.cli", "replay", "--quick", "--json", str(out),
         "--home", str(tmp_path / "home"), "--port", str(free_port())],
        cwd=tmp_path, env=clean_env(tmp_path), capture_output=True, text=True, timeout=3500,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    document = json.loads(out.read_text())
    assert document["failed"] == []
    assert json.loads(done.stdout[done.stdout.index("{\n"):])["changes"] == document["changes"]

    releases = {r["release"]: r for r in document["releases"]}
    assert list(releases) == ["6.14.00", "6.14.02", "6.18.00", "6.38.00", "6.40.00"]
    # the sources say where something can change: 6.14/02 ships 6.14/00's compression code
    assert releases["6.14.02"]["changed_paths"] == []
    assert set(releases["6.18.00"]["changed_paths"]) >= {"core/zip", "builtins/zlib"}

    changes = document["changes"]
    for change in changes:
        assert set(change) >= {"release", "metric", "setting", "dataset", "effect_pct"}
    by_release: dict[str, list[dict[str, object]]] = {}
    for change in changes:
        by_release.setdefault(str(change["release"]), []).append(change)
    # no change where the compression sources did not change
    assert "6.14.02" not in by_release, by_release.get("6.14.02")
    # Cloudflare zlib (6.18): ZLIB sizes at 1..9 and its instruction counts
    zlib_sizes = {(c["setting"], c["dataset"]) for c in by_release["6.18.00"]
                  if c["metric"] == "compressed_bytes"}
    assert {101, 109} <= {s for s, _ in zlib_sizes}, by_release["6.18.00"]
    assert any(c["metric"] == "compress_instructions_per_mb" and c["setting"] in (101, 109)
               for c in by_release["6.18.00"]), by_release["6.18.00"]
    # 6.40: zstd 1.4.8 -> 1.5.7 changes ZSTD sizes; xz 5.2.4 -> 5.8.2 LZMA decompression
    assert any(c["metric"] == "compressed_bytes" and c["setting"] == 505
               for c in by_release["6.40.00"]), by_release["6.40.00"]
    assert any(c["metric"] == "decompress_instructions_per_mb" and c["setting"] == 201
               for c in by_release["6.40.00"]), by_release["6.40.00"]
    # the first wheel release starts its own series (its libCore, not a source build)
    assert "6.38.00" not in by_release, by_release.get("6.38.00")

    measured = {(m["release"], m["dataset"], m["setting"]): m for m in document["measured"]}
    assert all(m["roundtrip_ok"] for m in measured.values())
    # 6.14/00 and 6.14/02: the same sources, byte-identical output
    for (release, dataset, setting), m in measured.items():
        if release == "6.14.00":
            assert measured[("6.14.02", dataset, setting)]["compressed_bytes"] == \
                m["compressed_bytes"]
