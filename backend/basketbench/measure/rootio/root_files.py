"""Where the demo and the workers find real ROOT files to build a corpus from."""

from __future__ import annotations

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


def default_root_files() -> list[Path]:
    """The shared real files if the checkout sits next to them, else the testdata wheel's.

    Never touches the network: files that scikit-hep-testdata would download
    are left out. Raises FileNotFoundError with a hint when neither exists.
    """
    shared = shared_root_files_dir()
    if shared.is_dir():
        return sorted(shared.glob("*.root"))
    try:
        from importlib import resources

        data = resources.files("skhep_testdata.data")
    except ModuleNotFoundError as exc:
        raise FileNotFoundError(
            f"no real ROOT files: {shared} does not exist and scikit-hep-testdata is not "
            "installed (pip install 'basketbench[demo]')"
        ) from exc
    found = [Path(str(data / name)) for name in TESTDATA_FILES]
    return [p for p in found if p.is_file()]
