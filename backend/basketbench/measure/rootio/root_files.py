"""Where the demo and the workers find real ROOT files to build a corpus from."""

from __future__ import annotations

import os
from pathlib import Path

from basketbench.measure.paths import repo_root

# The real files of /work/shared/data/root-files that also ship inside the
# scikit-hep-testdata 0.3.12 wheel (the others are remote-only there).
TESTDATA_FILES = (
    "uproot-HZZ.root",
    "uproot-HZZ-zlib.root",
    "uproot-HZZ-lz4.root",
    "uproot-HZZ-lzma.root",
    "uproot-HZZ-zstd.root",
    "uproot-HZZ-uncompressed.root",
    "uproot-Zmumu.root",
    "uproot-Zmumu-zlib.root",
    "uproot-Zmumu-lz4.root",
    "uproot-Zmumu-uncompressed.root",
    "uproot-mc10events.root",
)


def shared_root_files_dir() -> Path:
    return repo_root().parent / "shared" / "data" / "root-files"


def converted_root_files_dir() -> Path:
    """Real files converted here by a ROOT release (the demo's HZZ as an RNTuple, written by
    ROOT's RNTupleImporter): under $BASKETBENCH_CACHE_DIR or ~/.cache/basketbench."""
    base = os.environ.get("BASKETBENCH_CACHE_DIR")
    return (Path(base) if base else Path.home() / ".cache" / "basketbench") / "converted-root-files"


def default_root_files() -> list[Path]:
    """The shared real files if the checkout sits next to them, else the testdata wheel's;
    and the files a ROOT release converted here (converted_root_files_dir) in both cases.

    Never touches the network: files that scikit-hep-testdata would download
    are left out. Raises FileNotFoundError with a hint when neither exists.
    """
    converted = converted_root_files_dir()
    extra = sorted(converted.glob("*.root")) if converted.is_dir() else []
    shared = shared_root_files_dir()
    if shared.is_dir():
        return sorted(shared.glob("*.root")) + extra
    try:
        from importlib import resources

        data = resources.files("skhep_testdata.data")
    except ModuleNotFoundError as exc:
        raise FileNotFoundError(
            f"no real ROOT files: {shared} does not exist and scikit-hep-testdata is not "
            "installed (pip install 'basketbench[demo]')"
        ) from exc
    found = [Path(str(data / name)) for name in TESTDATA_FILES]
    return [p for p in found if p.is_file()] + extra
