"""Time the worker's per-commit build with pinned codecs (goals: 60 s cold, 1 s cached).

    .venv/bin/python -m bench.codec_build_time [--jobs 2] [--download] [--out FILE.json]

Runs the worker's own build step (pipeline._build: mirror, profile, builtin codec set, build
cache, rzbench) on the codec-versions fixture (a ROOT-layout tree: ROOT 6.32's Cloudflare
zlib from PyPI's cppyy-cling sdist and rzbench's rootcompat layer at ROOT's paths;
tests/workers/rootsources.py) in a fresh worker directory and a fresh codec cache:

  warm-up   cf-148 with the host's codecs: the one-time part of a worker's life (rzbench's
            `root` flavour compiled once per harness version); reported, not a goal
  cold      cf-157 with its builtin pins (zstd 1.5.7, lz4 1.10.0, xz 5.4.1) and an empty
            codec cache: every codec library compiled, the tree's layer compiled, rzbench relinked
  cached    cf-157 again: a build-cache hit
  new tree  vanilla (zlib switch), codecs cached: the tree's layer compiled, rzbench relinked

Each phase reports wall time, the CPU time of its compilers (children of this process) and
the 1-minute load average before and after; on a shared machine the CPU time is the
comparable figure. Debian's source archives are reused from the default codec cache (they
are downloaded once per machine) unless --download, which fetches them again with apt.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python bench/codec_build_time.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from basketbench_workers.build.codecs import default_cache
from basketbench_workers.build.gitmirror import Mirror
from basketbench_workers.build.profiles import choose_profile, load_profiles
from basketbench_workers.build.toolchain import detect_toolchain
from basketbench_workers.config import WorkerSettings
from basketbench_workers.pipeline.stages import _build, _codec_set
from basketbench_workers.procs import Deadline

from tests.workers.rootsources import build_repo


def _cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def _phase(name: str, settings: WorkerSettings, mirror: Mirror, sha: str, codecs: str,
           log: Path) -> dict[str, Any]:
    profiles = load_profiles()
    profile = choose_profile(profiles, "auto", lambda p: mirror.has_path(sha, p))
    codec_set = _codec_set({"codecs": codecs}, None, settings, profile, mirror, sha)
    load_before = os.getloadavg()[0]
    start, cpu = time.monotonic(), _cpu()
    result = _build(profile, mirror, sha, settings, log, Deadline("build", 3600), codec_set)
    row = {
        "phase": name,
        "commit": sha[:10],
        "profile": profile.name,
        "codecs": ", ".join(f"{p.library} {p.version}" for p in codec_set.pins) or "host",
        "cache_hit": result.cache_hit,
        "wall_s": round(time.monotonic() - start, 2),
        "cpu_s": round(_cpu() - cpu, 2),
        "load_before": round(load_before, 1),
        "load_after": round(os.getloadavg()[0], 1),
    }
    print(f"{name:9} {row['wall_s']:8.2f} s wall {row['cpu_s']:7.2f} s CPU  load "
          f"{row['load_before']}->{row['load_after']}  {profile.name}  {row['codecs']}",
          flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=int(os.environ.get(
        "BASKETBENCH_BUILD_JOBS", "2")), help="compilers at once (BASKETBENCH_BUILD_JOBS)")
    parser.add_argument("--download", action="store_true",
                        help="fetch Debian's source archives again (apt) in the cold phase")
    parser.add_argument("--workdir", type=Path, help="keep everything here (default: a temp dir)")
    parser.add_argument("--out", type=Path, help="write the rows as JSON")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bb-codec-build-") as tmp:
        root = args.workdir or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        repo, shas, _ = build_repo(root / "root")
        codec_cache = root / "codecs"
        codec_cache.mkdir(exist_ok=True)
        if not args.download:
            (default_cache() / "sources").mkdir(parents=True, exist_ok=True)
            if not (codec_cache / "sources").exists():
                (codec_cache / "sources").symlink_to(default_cache() / "sources")
        settings = WorkerSettings(worker_dir=root / "worker", codec_cache=codec_cache,
                                  build_jobs=args.jobs, root_repo=str(repo))
        mirror = Mirror(str(repo), root / "mirror.git")
        log = root / "build.log"
        mirror.update(log, Deadline("checkout", 600))
        print(f"jobs {args.jobs}, {os.cpu_count()} CPUs, {detect_toolchain().cc_version}; "
              f"log {log}", flush=True)
        rows = [
            _phase("warm-up", settings, mirror, shas["cf-148"], "host", log),
            _phase("cold", settings, mirror, shas["cf-157"], "builtin", log),
            _phase("cached", settings, mirror, shas["cf-157"], "builtin", log),
            _phase("new tree", settings, mirror, shas["vanilla"], "builtin", log),
        ]
        built = [line for line in log.read_text().splitlines() if line.startswith("built ")]
        print("\n".join(built))
        if args.out:
            args.out.write_text(json.dumps({
                "date": datetime.now(UTC).isoformat(timespec="seconds"),
                "jobs": args.jobs, "cpus": os.cpu_count(),
                "compiler": detect_toolchain().cc_version,
                "download": args.download, "rows": rows, "log_lines": built,
            }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
