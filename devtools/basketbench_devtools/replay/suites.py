"""What the replay measures: two worker suites, written into the replay's suites folder.

- replay-sources, for the sdist releases: ZLIB only. The sdists from 6.15 on ship neither
  core/lz4 nor core/lzma, and their RZip.cxx sends every algorithm but CS to ZLIB, so a
  4xx setting would measure ZLIB under LZ4's name; ZLIB is what every sdist has.
- replay-releases, for the wheel releases (their own libCore): ZLIB, LZMA and ZSTD.

Both count instructions (callgrind) on the synthetic `event` dataset: near-exact, so a
code change shows from one run on this loaded machine, where speeds of busy runs are not
screened. The real corpus is the first of the demo's files found here (HZZ).
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


def _suite_text(name: str, description: str, settings: tuple[int, ...],
                counted: tuple[int, ...], corpus: tuple[str, Path]) -> str:
    listed = ", ".join(str(s) for s in settings)
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
    for name, description, settings, counted in (
        (SOURCES_SUITE, "ROOT releases from their sdist sources: ZLIB 1, 6, 9",
         SOURCES_SETTINGS, SOURCES_COUNTED),
        (RELEASES_SUITE, "ROOT release wheels (their libCore): ZLIB 1, 9, LZMA 1, ZSTD 5",
         RELEASES_SETTINGS, RELEASES_COUNTED),
    ):
        target = paths.suites / f"{name}.toml"
        text = _suite_text(name, description, settings, counted, corpus)
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)
        files.append(target)
    prepare_corpora(paths, files[0])
    return files
