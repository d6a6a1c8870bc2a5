"""Byte-exact comparison of two rzbench builds on the real ROOT files (make test-aarch64).

Both builds compress every basket of each corpus at each setting (`rzbench digest`: sizes,
XXH64 of every compressed byte, round trips; no timing), and the cross build also decodes
ROOT's own compressed baskets (`rzbench verify`). The results must be identical. Speeds
under emulation mean nothing, so none are taken.

    python compare_arches.py --native build/rzbench --cross build-aarch64/rzbench --work DIR
    python compare_arches.py ... --expect-mismatch   # exit 0 only if the builds differ
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from basketbench.measure.rootio.extract import extract_corpus
from basketbench.measure.rootio.root_files import default_root_files

EVERY_SETTING = [a * 100 + level for a in (1, 2, 4, 5) for level in range(1, 10)]
# Small real files get every setting; the big ones the settings experiments use, so that the
# emulated run stays within a few minutes on 2 cores.
PLAN: dict[str, tuple[list[int], list[str]]] = {
    "uproot-HZZ-zlib.root": (EVERY_SETTING, ["none"]),
    "uproot-Zmumu-zlib.root": (EVERY_SETTING, ["none"]),
    "nanoAOD_2015_CMS_Open_Data_ttbar.root": (
        [101, 106, 109, 201, 207, 401, 404, 409, 501, 505, 509], ["none", "shuffle", "bitshuffle"]),
    "atlas-DAOD_PHYSLITE-sample.root": ([101, 207, 404, 505], ["none"]),
}
QUICK_PLAN: dict[str, tuple[list[int], list[str]]] = {
    "uproot-HZZ-zlib.root": ([101, 404, 505], ["none"]),
}


def qemu(binary: Path) -> list[str]:
    return ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", str(binary)]


def run_json(cmd: list[str]) -> dict:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)


def corpora(work: Path, plan: dict[str, tuple[list[int], list[str]]]) -> dict[str, Path]:
    """One corpus per planned real file, extracted once into `work`."""
    found = {p.name: p for p in default_root_files()}
    out: dict[str, Path] = {}
    for name in plan:
        if name not in found:
            print(f"skip {name}: not among the real files here")
            continue
        bbc = work / f"{Path(name).stem}.bbc"
        if not bbc.exists():
            extract_corpus([found[name]], bbc, Path(name).stem, log=lambda _m: None)
        out[name] = bbc
    return out


def digest(prefix: list[str], bbc: Path, settings: list[int], pres: list[str]) -> dict:
    return run_json([*prefix, "digest", "--corpus", str(bbc),
                     "--settings", ",".join(map(str, settings)),
                     "--preconditioners", ",".join(pres)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--native", type=Path, required=True)
    ap.add_argument("--cross", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--expect-mismatch", action="store_true",
                    help="self-check: succeed only if the builds write different bytes")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    plan = QUICK_PLAN if args.expect_mismatch else PLAN
    cross = qemu(args.cross)
    arch = run_json([*cross, "fingerprint"])["arch"]
    if arch != "aarch64":
        raise SystemExit(f"the cross build reports arch {arch!r}, not aarch64")
    files = corpora(args.work, plan)
    if not files:
        raise SystemExit("no real ROOT files to compare on")
    started = time.monotonic()
    mismatches: list[str] = []
    rows = 0
    for name, bbc in files.items():
        settings, pres = plan[name]
        with ThreadPoolExecutor(2) as pool:  # the native and the emulated run side by side
            native_f = pool.submit(digest, [str(args.native)], bbc, settings, pres)
            cross_f = pool.submit(digest, cross, bbc, settings, pres)
            native, emulated = native_f.result(), cross_f.result()
        for a, b in zip(native["results"], emulated["results"], strict=True):
            rows += 1
            label = f"{name} {a['setting']} {a['preconditioner']}"
            if not a["roundtrip_ok"] or not b["roundtrip_ok"]:
                mismatches.append(f"{label}: round trip failed ({a['error'] or b['error']})")
            for key in ("compressed_bytes", "stored_buffers", "xxh64"):
                if a[key] != b[key]:
                    mismatches.append(f"{label}: {key} x86_64 {a[key]} != aarch64 {b[key]}")
        if not args.expect_mismatch:
            verify = run_json([*cross, "verify", "--corpus", str(bbc)])
            if verify["failures"]:
                mismatches.append(f"{name}: aarch64 could not decode ROOT's bytes: "
                                  f"{verify['failures'][:3]}")
            print(f"{name}: {verify['decoded_ok']}/{verify['baskets']} of ROOT's baskets "
                  f"decoded byte-exactly on aarch64")
    seconds = time.monotonic() - started
    print(f"{rows} (file, setting, preconditioner) rows compared in {seconds:.0f} s, "
          f"{len(mismatches)} mismatches")
    for m in mismatches[:20]:
        print(f"  {m}")
    if args.expect_mismatch:
        if not mismatches:
            print("FAIL: a deliberately wrong build was not caught", file=sys.stderr)
            return 1
        print("ok: the deliberately wrong build was caught")
        return 0
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
