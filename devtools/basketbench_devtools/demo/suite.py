"""What the demo measures: its suite (`demo`, or `demo-quick` with --quick) written as a
worker suite file, over the real ROOT files installed here and the synthetic generators,
and the suite's corpora extracted before the run.

The corpora are extracted with the worker's own code (basketbench_workers.pipeline.corpora and
.suites), into the worker's corpus cache under the same content-hash names, so that the
run finds them there; the API has no route for this local file work.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from basketbench_devtools.demo.console import DemoError, say
from basketbench_devtools.demo.home import DemoPaths
from basketbench_devtools.demo.rntuple import converted_name

DEMO_SUITE = "demo"
QUICK_SUITE = "demo-quick"
# Real files for the demo's corpora, in order of preference; those present are used.
DEMO_CORPORA = (
    ("hzz", "uproot-HZZ-zlib.root"),
    ("zmumu", "uproot-Zmumu-zlib.root"),
    ("nanoaod", "nanoAOD_2015_CMS_Open_Data_ttbar.root"),
    ("physlite", "atlas-DAOD_PHYSLITE-sample.root"),
    # ROOT's own RNTuple pages (its metadata TTrees left out): beside "physlite" on the
    # trade-off page, the TTree and RNTuple forms of ATLAS PHYSLITE
    ("physlite-rntuple", "uproot-physlite-rntuple_v1-0-0-0.root"),
    # HZZ's events as ROOT 6.40.00's RNTupleImporter writes them (demo/rntuple.py): beside
    # "hzz" on the trade-off page, without the shared data too
    ("hzz-rntuple", converted_name()),
)
# Corpora that hold only one kind of buffer (suite `kind`): "ttree" or "rntuple".
DEMO_KINDS = {"physlite-rntuple": "rntuple", "hzz-rntuple": "rntuple"}
# --quick measures the first real corpus, and the RNTuple form of HZZ when it was converted
QUICK_ALSO = ("hzz-rntuple",)
# End-to-end ROOT I/O (suite "demo-io", on one release: PyROOT comes with its wheel): HZZ
# written and read as TTree and RNTuple at two settings, one thread, caches on, warm page cache
IO_SUITE = "demo-io"
IO_FILE = "uproot-HZZ-zlib.root"
IO_SETTINGS = (101, 505)
# The synthetic generators except tlarge (8 MB of what tfloat already shows): with the real
# corpora about 30 MB per pass, a few minutes on an idle laptop.
DEMO_SYNTHETIC = ("event", "nanoaod-offsets", "tfloat", "tsmall", "random", "zeros")
# Every algorithm at a fast and a strong level (LZMA only fast: it is 10x slower than the
# rest): enough for a trade-off plot. The workers' `full` suite has the papers' grid.
DEMO_SETTINGS = (101, 104, 109, 201, 401, 404, 409, 501, 505, 507)


def suite_name(quick: bool) -> str:
    return QUICK_SUITE if quick else DEMO_SUITE


def available_corpora() -> list[tuple[str, Path]]:
    from basketbench.measure.rootio.root_files import default_root_files

    try:
        files = {p.name: p for p in default_root_files()}
    except FileNotFoundError as exc:
        raise DemoError(str(exc)) from exc
    chosen = [(name, files[f]) for name, f in DEMO_CORPORA if f in files]
    if not chosen:
        raise DemoError(
            "none of the demo's real ROOT files is available "
            f"({', '.join(f for _, f in DEMO_CORPORA)}); install them with: "
            f"{sys.executable} -m pip install 'scikit-hep-testdata==0.3.12'"
        )
    return chosen


def write_suite(paths: DemoPaths, corpora: list[tuple[str, Path]], quick: bool) -> Path:
    """The demo suite as a worker suite file (BASKETBENCH_SUITES_DIR), rewritten each time so
    it always names the files that exist here."""
    settings = (101, 404, 505) if quick else DEMO_SETTINGS
    synthetic = ("event", "nanoaod-offsets") if quick else DEMO_SYNTHETIC
    name = suite_name(quick)
    lines = [
        "# Written by `basketbench demo`: every algorithm on real and synthetic baskets.",
        f'name = "{name}"',
        'description = "basketbench demo: real ROOT files and the synthetic datasets"',
        "synthetic = [" + ", ".join(f'"{s}"' for s in synthetic) + "]",
        "settings = [" + ", ".join(str(s) for s in settings) + "]",
        "min_samples = 5",
        f"target_ms = {20 if quick else 50}",
    ]
    chosen = corpora if not quick else corpora[:1] + [c for c in corpora[1:]
                                                       if c[0] in QUICK_ALSO]
    for corpus, path in chosen:
        lines += ["", "[[corpora]]", f'name = "{corpus}"', f'files = ["{path.name}"]']
        if corpus in DEMO_KINDS:
            lines.append(f'kind = "{DEMO_KINDS[corpus]}"')
    paths.suites.mkdir(parents=True, exist_ok=True)
    target = paths.suites / f"{name}.toml"
    text = "\n".join(lines) + "\n"
    if not target.is_file() or target.read_text() != text:
        target.write_text(text)
    return target


def write_io_suite(paths: DemoPaths) -> str | None:
    """The end-to-end I/O suite (`[io]` table) as a worker suite file; None without HZZ."""
    if not any(path.name == IO_FILE for _, path in available_corpora()):
        return None
    settings = ", ".join(map(str, IO_SETTINGS))
    text = "\n".join([
        "# Written by `basketbench demo`: end-to-end ROOT I/O of HZZ on one ROOT release.",
        f'name = "{IO_SUITE}"',
        'description = "basketbench demo: HZZ written and read by ROOT (TTree, RNTuple)"',
        f"settings = [{settings}]",
        "min_samples = 3",
        "target_ms = 20",
        "",
        "[[corpora]]",
        'name = "hzz"',
        f'files = ["{IO_FILE}"]',
        "",
        "[io]",
        f'files = ["{IO_FILE}"]',
        f"settings = [{settings}]",
        'forms = ["ttree", "rntuple"]',
        "threads = [1]",
        'caches = ["on"]',
        'page_caches = ["warm"]',
        "min_samples = 3",
        "target_ms = 20",
    ]) + "\n"
    paths.suites.mkdir(parents=True, exist_ok=True)
    target = paths.suites / f"{IO_SUITE}.toml"
    if not target.is_file() or target.read_text() != text:
        target.write_text(text)
    return IO_SUITE


def prepare_corpora(paths: DemoPaths, suite_file: Path) -> None:
    """Extract the suite's corpora into the worker's corpus cache now, with progress, so the
    run itself only measures. Same cache and naming as the worker (content hash)."""
    import tomllib

    from basketbench_workers.pipeline.corpora import corpus_file
    from basketbench_workers.pipeline.suites import parse_suite

    suite = parse_suite(tomllib.loads(suite_file.read_text()), str(suite_file))
    for spec in suite.corpora:
        before = set(paths.corpora.glob("*.bbc"))
        started = time.monotonic()
        target = corpus_file(spec, paths.corpora)
        took = time.monotonic() - started
        state = "cached" if target in before else f"extracted in {took:.1f} s"
        say(f"corpus {spec.name}: {target.name} ({target.stat().st_size / 1e6:.1f} MB, {state})")


def prepare_suite(paths: DemoPaths, quick: bool) -> str:
    """Write the suite file for the corpora found here and extract them; returns its name."""
    corpora = available_corpora()
    suite_file = write_suite(paths, corpora, quick)
    suite = suite_name(quick)
    say(f"suite {suite}: {suite_file} ({len(corpora)} real corpora available)")
    prepare_corpora(paths, suite_file)
    return suite
