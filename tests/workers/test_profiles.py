"""Build profiles and suites are data files: loading, validation and automatic choice."""

from __future__ import annotations

from pathlib import Path

import pytest
from basketbench_workers.build.profiles import (
    ProfileError,
    choose_profile,
    load_profile_file,
    load_profiles,
)
from basketbench_workers.pipeline.suites import SuiteError, get_suite, load_suites


def test_packaged_profiles_load_and_name_their_version_range() -> None:
    profiles = load_profiles()
    assert {"rootcompat", "test-layout", "root-cloudflare-zlib", "root-vanilla-zlib"} <= set(
        profiles
    )
    for profile in profiles.values():
        assert profile.supports.strip(), profile.name
        if profile.kind == "root":
            assert profile.groups and profile.tree_paths, profile.name
    assert profiles["root-cloudflare-zlib"].zlib == "cloudflare"
    assert profiles["root-vanilla-zlib"].zlib == "system"


def test_auto_choice_follows_the_tree_layout() -> None:
    profiles = load_profiles()

    def tree(*paths: str):  # noqa: ANN202 - tiny predicate factory
        return lambda p: p in paths

    cf = tree("core/zip/src/RZip.cxx", "builtins/zlib/deflate_cf.c", "core/zstd/src/ZipZSTD.cxx")
    assert choose_profile(profiles, "auto", cf).name == "root-cloudflare-zlib"
    vanilla = tree("core/zip/src/RZip.cxx", "core/zstd/src/ZipZSTD.cxx")
    assert choose_profile(profiles, "auto", vanilla).name == "root-vanilla-zlib"
    # basketbench's own repository: no ROOT layout -> rootcompat.
    assert choose_profile(profiles, "auto", tree("bench-harness/CMakeLists.txt")).name == (
        "rootcompat"
    )
    # Newer trees keep the codec wrappers in builtins/zip.
    moved = tree("core/zip/src/RZip.cxx", "builtins/zip/ZipZSTD.cxx")
    assert choose_profile(profiles, "auto", moved).name == "root-vanilla-zlib"
    # A ROOT tree no profile describes (no ZSTD and no builtins/zlib, like 6.10's) is a clear
    # error, never a silent rootcompat run under ROOT's commit.
    with pytest.raises(ProfileError, match="no build profile matches"):
        choose_profile(profiles, "auto", tree("core/zip/src/RZip.cxx"))
    # Before ZSTD, as the cppyy-cling sdists ship ROOT (basketbench replay): ROOT's vanilla
    # bundled zlib until 6.17, Cloudflare's in 6.18 / 6.19.
    legacy = tree("core/zip/src/RZip.cxx", "builtins/zlib/deflate.c")
    assert choose_profile(profiles, "auto", legacy).name == "root-legacy-zlib"
    cf_nozstd = tree("core/zip/src/RZip.cxx", "builtins/zlib/deflate.c",
                     "builtins/zlib/deflate_cf.c")
    assert choose_profile(profiles, "auto", cf_nozstd).name == "root-cloudflare-nozstd"
    assert profiles["root-legacy-zlib"].zlib == "bundled"
    # test-layout is only used when named.
    assert choose_profile(profiles, "test-layout", tree()).name == "test-layout"


def test_unknown_profile_name_is_a_clear_error() -> None:
    with pytest.raises(ProfileError, match="unknown build profile 'nope'"):
        choose_profile(load_profiles(), "nope", lambda _p: False)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "x"\nversion = 1\nkind = "root"\n', "missing 'supports'"),
        ('name = "x"\nversion = 1\nkind = "cmake"\nsupports = "a"\n', "kind must be"),
        ('name = "x"\nversion = "1"\nkind = "root"\nsupports = "a"\n', "'version' must be"),
        ('name = "x"\nversion = 1\nkind = "root"\nsupports = "a"\n', "at least one source group"),
        ('name = "x"\nversion = 1\nkind = "root"\nsupports = "a"\nzlib = "zlib-ng"\n', "zlib must"),
        ("name = [", "x.toml"),
    ],
)
def test_malformed_profiles_are_rejected(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(ProfileError, match=message):
        load_profile_file(path)


def test_operator_profiles_dir_adds_and_overrides(tmp_path: Path) -> None:
    (tmp_path / "fork.toml").write_text(
        'name = "my-fork"\nversion = 3\nkind = "root"\nsupports = "our fork, 2025"\n'
        'tree_paths = ["zip"]\n[[groups]]\nname = "all"\nsources = ["zip/*.cxx"]\n'
    )
    profiles = load_profiles(tmp_path)
    assert profiles["my-fork"].version == 3
    assert "rootcompat" in profiles


def test_suites_quick_and_full() -> None:
    suites = load_suites()
    quick = suites["quick"]
    assert {101, 404, 505} <= set(quick.settings)
    assert quick.synthetic and quick.corpora  # synthetic + one small real corpus
    full = get_suite("full")
    assert len(full.settings) > len(quick.settings)
    args = quick.rzbench_args([Path("/c/hzz.bbc")])
    assert args[:2] == ["--corpus", "/c/hzz.bbc"]
    assert args[args.index("--settings") + 1] == ",".join(str(s) for s in quick.settings)
    with pytest.raises(SuiteError, match="unknown suite"):
        get_suite("nope")


def test_counts_suite_counts_its_36_settings() -> None:
    counts = get_suite("counts")
    assert counts.instructions is not None and len(counts.instructions.settings) == 36
    args = counts.count_args({"hzz": Path("/c/hzz.bbc")})
    assert args is not None and args[-1] == "--no-memcpy"
    assert args[:2] == ["--corpus", "/c/hzz.bbc"]
    assert get_suite("quick").count_args({"hzz": Path("/c/hzz.bbc")}) is None


def test_instructions_table_selects_and_rejects(tmp_path: Path) -> None:
    base = 'name = "c"\nsynthetic = ["event", "tfloat"]\nsettings = [101, 404, 505]\n'
    (tmp_path / "c.toml").write_text(base + '[instructions]\nsettings = [404]\n'
                                     'synthetic = ["event"]\n')
    spec = get_suite("c", tmp_path).instructions
    assert spec is not None
    assert (spec.settings, spec.synthetic, spec.corpora) == ((404,), ("event",), ())
    (tmp_path / "c.toml").write_text(base + '[instructions]\nsynthetic = ["zeros"]\n')
    with pytest.raises(SuiteError, match=r"\['zeros'\] are not datasets of the suite"):
        get_suite("c", tmp_path)
    (tmp_path / "c.toml").write_text(base + '[instructions]\nlevels = [1]\n')
    with pytest.raises(SuiteError, match="unknown keys"):
        get_suite("c", tmp_path)
