"""What the replay measures: two worker suites, written into the replay's suites folder.

- replay-sources, for the sdist releases: ZLIB only. The sdists from 6.15 on ship neither
  core/lz4 nor core/lzma, and their RZip.cxx sends every algorithm but CS to ZLIB, so a
  4xx setting would measure ZLIB under LZ4's name; ZLIB is what every sdist has.
- replay-releases, for the wheel releases (their own libCore): ZLIB, LZMA and ZSTD.

Both count instructions (callgrind) on the synthetic `event` dataset: near-exact, so a
code change shows from one run on this loaded machine, where speeds of busy runs are not
screened. The real corpus is the first of the demo's files found here (HZZ).

Speeds come from the worker's per-commit interleaved A/B ([ab], pipeline/abstage.py): each
release's layer against the previous release's, in one rzbench process, on HZZ. The sdist
releases compare ZLIB 1, 6, 9 against the parent's cached build (a release whose sources
did not change is measured against a copy of the same layer); 6.40.00 compares its libCore
against 6.38.00's (its parent, a tagged release). Detection screens those A/B effects and
confirms a candidate by one more A/B of the same pair: that run's suite is `ab`, written
here too, with every setting either suite asks for (an sdist layer sends 201 and 505 to
ZLIB, so its confirming A/B's rows for them are ZLIB under another name: report.py keeps
an A/B row only for the settings its release's suite measures).
"""

from __future__ import annotations

from pathlib import Path

from basketbench_devtools.demo.home import DemoPaths
from basketbench_devtools.demo.suite import available_corpora, prepare_corpora

SOURCES_SUITE = "replay-sources"
RELEASES_SUITE = "replay-releases"
SOURCES_SETTINGS = (101, 106, 109)
RELEASES_SETTINGS = (101, 109, 201, 505)
SOURCES_COUNTED = (101, 109)
RELEASES_COUNTED = (101, 201, 505)
AB_SUITE = "ab"
SOURCES_AB = (101, 106, 109)
RELEASES_AB = (101, 201, 505)
# Pairs per (setting, direction): 15 give a 95 % interval of about +-2 % on this machine
# (docs/perf/ab.md) at a few seconds per setting, enough for effects of 5 % and more.
AB_PAIRS = 15
AB_TARGET_MS = 20


def _listed(values: tuple[int, ...]) -> str:
    return ", ".join(str(v) for v in values)


def _ab_table(settings: tuple[int, ...], corpus: str, reference_release: str | None
              ) -> list[str]:
    return [
        "[ab]",
        f'corpora = ["{corpus}"]',
        f"settings = [{_listed(settings)}]",
        f"pairs = {AB_PAIRS}",
        f"target_ms = {AB_TARGET_MS}",
        "timeout_seconds = 900",
        *([f'reference_release = "{reference_release}"'] if reference_release else []),
        "",
    ]


def _suite_text(name: str, description: str, settings: tuple[int, ...],
                counted: tuple[int, ...], corpus: tuple[str, Path],
                ab: tuple[int, ...], reference_release: str | None = None) -> str:
    listed = _listed(settings)
    return "\n".join([
        "# Written by `basketbench replay` (devtools/basketbench_devtools/replay/suites.py).",
        f'name = "{name}"',
        f'description = "{description}"',
        'synthetic = ["event"]',
        f"settings = [{listed}]",
        "min_samples = 7",
        "target_ms = 30",
        "",
        "[instructions]",
        f"settings = [{', '.join(str(s) for s in counted)}]",
        'synthetic = ["event"]',
        "corpora = []",
        "",
        *_ab_table(ab, corpus[0], reference_release),
        "[[corpora]]",
        f'name = "{corpus[0]}"',
        f'files = ["{corpus[1].name}"]',
        "",
    ])


def write_suites(paths: DemoPaths) -> list[Path]:
    """Both suite files (rewritten when their text changes), corpora extracted."""
    corpus = available_corpora()[0]
    paths.suites.mkdir(parents=True, exist_ok=True)
    files = []
    for name, description, settings, counted, ab, reference in (
        (SOURCES_SUITE, "ROOT releases from their sdist sources: ZLIB 1, 6, 9",
         SOURCES_SETTINGS, SOURCES_COUNTED, SOURCES_AB, None),
        (RELEASES_SUITE, "ROOT release wheels (their libCore): ZLIB 1, 9, LZMA 1, ZSTD 5",
         RELEASES_SETTINGS, RELEASES_COUNTED, RELEASES_AB, "6.38.00"),
    ):
        target = paths.suites / f"{name}.toml"
        text = _suite_text(name, description, settings, counted, corpus, ab, reference)
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)
        files.append(target)
    confirm = paths.suites / f"{AB_SUITE}.toml"
    text = "\n".join([
        "# Written by `basketbench replay`: the confirming A/Bs detection asks for.",
        f'name = "{AB_SUITE}"',
        'description = "Replay: interleaved A/B of a release against another"',
        "synthetic = []",
        f"settings = [{_listed(tuple(sorted(set(SOURCES_AB) | set(RELEASES_AB))))}]",
        "",
        *_ab_table(tuple(sorted(set(SOURCES_AB) | set(RELEASES_AB))), corpus[0], None),
        "[[corpora]]",
        f'name = "{corpus[0]}"',
        f'files = ["{corpus[1].name}"]',
        "",
    ])
    if not confirm.is_file() or confirm.read_text() != text:
        confirm.write_text(text)
    prepare_corpora(paths, files[0])
    return [*files, confirm]
