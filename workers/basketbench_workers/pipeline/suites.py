"""Benchmark suites: datasets x configurations, as data files (suites/*.toml)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

PACKAGED_SUITES = Path(__file__).parent / "suites"


class SuiteError(Exception):
    pass


@dataclass(frozen=True)
class CorpusSpec:
    """A real-data corpus: ROOT files (base names of
    basketbench.measure.rootio.default_root_files()).

    With `page_size`, the corpus holds the files' RNTuple pages re-paged at that many bytes
    (`encoding` "as-written": each column's own encoding, "unsplit": without split/delta/zigzag).
    """

    name: str
    files: tuple[str, ...]
    page_size: int | None = None
    encoding: str = "as-written"
    kind: str | None = None  # "ttree" or "rntuple": only the files' baskets, or only their pages


@dataclass(frozen=True)
class IoSpec:
    """End-to-end ROOT I/O (`basketbench run --io`) of real files; only suites with an [io]
    table run it, and only on a ROOT release (PyROOT comes with the release's wheel)."""

    files: tuple[str, ...]
    settings: tuple[int, ...]
    forms: tuple[str, ...] = ("ttree", "rntuple")
    threads: tuple[int, ...] = ()  # empty: 1..the machine's cores
    caches: tuple[str, ...] = ("on", "off")
    page_caches: tuple[str, ...] = ("warm", "cold")
    min_samples: int = 5
    target_ms: float = 50.0


@dataclass(frozen=True)
class CountSpec:
    """Which of a suite's configurations also get instruction counts (measure/rzbench/counting.py):
    `[instructions]` in the suite file; each key defaults to the suite's own."""

    settings: tuple[int, ...]
    synthetic: tuple[str, ...]
    corpora: tuple[str, ...]  # corpus names of the suite


@dataclass(frozen=True)
class AbSpec:
    """The per-commit interleaved A/B after the benchmark (pipeline/abstage.py): `[ab]` in
    the suite file. Kept small (a few settings, one small corpus, tens of pairs) so it adds
    seconds to a run, not a second run."""

    corpora: tuple[str, ...]  # corpus names of the suite
    settings: tuple[int, ...]
    pairs: int = 21
    target_ms: float = 20.0
    timeout_seconds: float = 600.0
    # when no earlier build of the series is cached: this ROOT release (if its wheel is
    # already installed on the machine; the stage never downloads one), else no A/B
    reference_release: str | None = None
    lookback: int = 20  # first-parent ancestors searched for a cached build


@dataclass(frozen=True)
class ArenaSpec:
    """The codec arena after the benchmark (pipeline/arenastage.py): `[arena]` in the suite
    file. Candidate codecs measured on real ROOT files against the commit's own build as
    ROOT's reference layer, one upload per file (POST /arena-runs)."""

    files: tuple[str, ...]  # base names of basketbench.measure.rootio.default_root_files()
    candidates: tuple[str, ...] | None = None  # `zstd:3/10/19` style; None: every candidate
    pairs: int = 11
    shape_pairs: int = 0  # > 0: also the per-shape ratios (the sizes always)
    target_ms: float = 20.0
    timeout_seconds: float = 1800.0


@dataclass(frozen=True)
class HeadroomSpec:
    """The per-commit headroom after the A/B (pipeline/headroomstage.py): `[headroom]` in the
    suite file. The commit's framed path (its layer) against the bare codec library on the same
    buffers, interleaved; uploaded as A/B runs whose reference is the bare library (kind
    "bare"), so its history is a series like any other. Small, like the A/B."""

    corpora: tuple[str, ...]  # corpus names of the suite; the first is measured
    settings: tuple[int, ...]
    pairs: int = 15
    target_ms: float = 20.0
    timeout_seconds: float = 300.0


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    aliases: tuple[str, ...]
    synthetic: tuple[str, ...]
    corpora: tuple[CorpusSpec, ...]
    settings: tuple[int, ...]
    preconditioners: tuple[str, ...] = ("none",)
    dictionary_sizes: tuple[int, ...] = (0,)
    basket_sizes: tuple[int, ...] = (0,)
    modes: tuple[str, ...] = ("basket",)
    threads: tuple[int, ...] = (1,)
    min_samples: int = 9
    target_ms: float = 100.0
    codecs: str | None = None  # codec set (host, builtin, a named set); None: the worker's
    io: IoSpec | None = None  # end-to-end ROOT I/O: only when the suite asks for it
    instructions: CountSpec | None = None  # None: timed only
    ab: AbSpec | None = None  # None: no per-commit A/B
    arena: ArenaSpec | None = None  # None: no codec arena
    headroom: HeadroomSpec | None = None  # None: no per-commit framing headroom

    def count_args(self, corpus_files: dict[str, Path]) -> list[str] | None:
        """rzbench arguments of the counted run (no memcpy row), None when not counted."""
        spec = self.instructions
        if spec is None:
            return None
        counted = replace(
            self,
            settings=spec.settings,
            synthetic=spec.synthetic,
            corpora=tuple(c for c in self.corpora if c.name in spec.corpora),
        )
        files = [corpus_files[c.name] for c in counted.corpora]
        return [*counted.rzbench_args(files), "--no-memcpy"]

    def rzbench_args(self, corpus_files: list[Path]) -> list[str]:
        args: list[str] = []
        for path in corpus_files:
            args += ["--corpus", str(path)]
        if self.synthetic:
            args += ["--synthetic", ",".join(self.synthetic)]

        def join(values: tuple[Any, ...]) -> str:
            return ",".join(str(v) for v in values)

        args += [
            "--settings",
            join(self.settings),
            "--preconditioners",
            join(self.preconditioners),
            "--dictionary-sizes",
            join(self.dictionary_sizes),
            "--basket-sizes",
            join(self.basket_sizes),
            "--modes",
            join(self.modes),
            "--threads",
            join(self.threads),
            "--min-samples",
            str(self.min_samples),
            "--target-ms",
            f"{self.target_ms:g}",
        ]
        return args


def _ints(raw: dict[str, Any], key: str, default: tuple[int, ...], where: str) -> tuple[int, ...]:
    value = raw.get(key, list(default))
    if not isinstance(value, list) or not value or not all(isinstance(v, int) for v in value):
        raise SuiteError(f"{where}: '{key}' must be a non-empty list of integers")
    return tuple(value)


def _strs(raw: dict[str, Any], key: str, default: tuple[str, ...], where: str) -> tuple[str, ...]:
    value = raw.get(key, list(default))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SuiteError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


ENCODINGS = ("as-written", "unsplit")


def _corpus_specs(raw: dict[str, Any], where: str) -> list[CorpusSpec]:
    """One spec, or one per page size x encoding for an RNTuple page sweep
    (`page_sizes = [16384, ...]`, `encodings = ["as-written", "unsplit"]`): the dataset names
    get "-p<size>" and, unsplit, "-unsplit"."""
    files = _strs(raw, "files", (), where)
    kind = raw.get("kind")
    if kind not in (None, "ttree", "rntuple"):
        raise SuiteError(f"{where}: 'kind' must be \"ttree\" or \"rntuple\", got {kind!r}")
    if "page_sizes" not in raw:
        if "encodings" in raw:
            raise SuiteError(f"{where}: 'encodings' needs 'page_sizes'")
        return [CorpusSpec(raw["name"], files, kind=kind)]
    sizes = _ints(raw, "page_sizes", (), where)
    if any(size < 64 for size in sizes):
        raise SuiteError(f"{where}: 'page_sizes' must be at least 64 bytes each")
    encodings = _strs(raw, "encodings", ("as-written",), where)
    unknown = [e for e in encodings if e not in ENCODINGS]
    if unknown or not encodings:
        raise SuiteError(f"{where}: 'encodings' must be a non-empty list of {list(ENCODINGS)}")
    return [
        CorpusSpec(f"{raw['name']}-p{size}" + ("-unsplit" if enc == "unsplit" else ""), files,
                   size, enc, kind)
        for enc in encodings for size in sizes
    ]


def parse_suite(raw: dict[str, Any], where: str) -> Suite:
    if "name" not in raw:
        raise SuiteError(f"{where}: missing 'name'")
    corpora = []
    for i, c in enumerate(raw.get("corpora", [])):
        if "name" not in c or not c.get("files"):
            raise SuiteError(f"{where}: corpora[{i}] needs 'name' and 'files'")
        corpora += _corpus_specs(c, f"{where}: corpora[{i}]")
    synthetic = _strs(raw, "synthetic", (), where)
    if not synthetic and not corpora:
        raise SuiteError(f"{where}: a suite needs synthetic datasets or corpora")
    return Suite(
        name=raw["name"],
        description=raw.get("description", ""),
        aliases=_strs(raw, "aliases", (), where),
        synthetic=synthetic,
        corpora=tuple(corpora),
        settings=_ints(raw, "settings", (101, 404, 505), where),
        preconditioners=_strs(raw, "preconditioners", ("none",), where),
        dictionary_sizes=_ints(raw, "dictionary_sizes", (0,), where),
        basket_sizes=_ints(raw, "basket_sizes", (0,), where),
        modes=_strs(raw, "modes", ("basket",), where),
        threads=_ints(raw, "threads", (1,), where),
        min_samples=int(raw.get("min_samples", 9)),
        target_ms=float(raw.get("target_ms", 100.0)),
        codecs=_codecs(raw, where),
        io=_io(raw, where),
        instructions=_count_spec(raw, where, synthetic, corpora),
        ab=_ab_spec(raw, where, corpora),
        arena=_arena_spec(raw, where),
        headroom=_headroom_spec(raw, where, corpora),
    )


_ARENA_KEYS = {"files", "candidates", "pairs", "shape_pairs", "target_ms", "timeout_seconds",
               "enabled"}


def _arena_spec(raw: dict[str, Any], where: str) -> ArenaSpec | None:
    table = raw.get("arena")
    if table is None:
        return None
    here = f"{where}: [arena]"
    if not isinstance(table, dict):
        raise SuiteError(f"{here} must be a table")
    unknown = set(table) - _ARENA_KEYS
    if unknown:
        raise SuiteError(f"{here}: unknown key(s) {sorted(unknown)}")
    if table.get("enabled", True) is False:
        return None
    files = _strs(table, "files", (), here)
    if not files or any("/" in f or not f.endswith(".root") for f in files):
        raise SuiteError(f"{here}: 'files' must name ROOT files (base names such as "
                         "uproot-HZZ.root)")
    candidates = None
    if "candidates" in table:
        candidates = _strs(table, "candidates", (), here)
        if not candidates:
            raise SuiteError(f"{here}: 'candidates' must name at least one candidate "
                             "(leave it out for every candidate)")
    pairs, shape_pairs = table.get("pairs", 11), table.get("shape_pairs", 0)
    target, timeout = table.get("target_ms", 20.0), table.get("timeout_seconds", 1800.0)
    if not isinstance(pairs, int) or isinstance(pairs, bool) or not 1 <= pairs <= 1000:
        raise SuiteError(f"{here}: 'pairs' must be an integer from 1 to 1000")
    if not isinstance(shape_pairs, int) or isinstance(shape_pairs, bool) \
            or not 0 <= shape_pairs <= 1000:
        raise SuiteError(f"{here}: 'shape_pairs' must be an integer from 0 to 1000")
    if not isinstance(target, int | float) or not 1 <= target <= 1000:
        raise SuiteError(f"{here}: 'target_ms' must be 1 to 1000 ms")
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise SuiteError(f"{here}: 'timeout_seconds' must be positive")
    return ArenaSpec(files=files, candidates=candidates, pairs=pairs, shape_pairs=shape_pairs,
                     target_ms=float(target), timeout_seconds=float(timeout))


_AB_KEYS = {"corpora", "settings", "pairs", "target_ms", "timeout_seconds", "reference_release",
            "lookback", "enabled"}


def _ab_spec(raw: dict[str, Any], where: str, corpora: list[CorpusSpec]) -> AbSpec | None:
    table = raw.get("ab")
    if table is None:
        return None
    here = f"{where}: [ab]"
    if not isinstance(table, dict):
        raise SuiteError(f"{here} must be a table")
    unknown = set(table) - _AB_KEYS
    if unknown:
        raise SuiteError(f"{here}: unknown key(s) {sorted(unknown)}")
    if table.get("enabled", True) is False:
        return None
    names = tuple(c.name for c in corpora)
    chosen = _strs(table, "corpora", names[:1], here)
    strangers = [n for n in chosen if n not in names]
    if strangers or not chosen:
        raise SuiteError(f"{here}: 'corpora' must name corpora of the suite {list(names)}, "
                         f"not {strangers or chosen}")
    settings = _ints(table, "settings", (101, 505), here)
    if any(s // 100 not in (1, 2, 4, 5) or not 1 <= s % 100 <= 9 for s in settings):
        raise SuiteError(f"{here}: 'settings' must be ROOT settings such as 101 or 505")
    pairs, target, timeout, lookback = (table.get("pairs", 21), table.get("target_ms", 20.0),
                                        table.get("timeout_seconds", 600.0),
                                        table.get("lookback", 20))
    if not isinstance(pairs, int) or not 5 <= pairs <= 1000:
        raise SuiteError(f"{here}: 'pairs' must be an integer from 5 to 1000")
    if not isinstance(target, int | float) or not 1 <= target <= 1000:
        raise SuiteError(f"{here}: 'target_ms' must be 1 to 1000 ms")
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise SuiteError(f"{here}: 'timeout_seconds' must be positive")
    if not isinstance(lookback, int) or not 0 <= lookback <= 1000:
        raise SuiteError(f"{here}: 'lookback' must be an integer from 0 to 1000")
    release = table.get("reference_release")
    if release is not None and (not isinstance(release, str) or not release):
        raise SuiteError(f"{here}: 'reference_release' names a ROOT release such as 6.40.00")
    return AbSpec(corpora=chosen, settings=settings, pairs=pairs, target_ms=float(target),
                  timeout_seconds=float(timeout), reference_release=release, lookback=lookback)


_HEADROOM_KEYS = {"corpus", "settings", "pairs", "target_ms", "timeout_seconds", "enabled"}


def _headroom_spec(raw: dict[str, Any], where: str,
                   corpora: list[CorpusSpec]) -> HeadroomSpec | None:
    table = raw.get("headroom")
    if table is None:
        return None
    here = f"{where}: [headroom]"
    if not isinstance(table, dict):
        raise SuiteError(f"{here} must be a table")
    unknown = set(table) - _HEADROOM_KEYS
    if unknown:
        raise SuiteError(f"{here}: unknown key(s) {sorted(unknown)}")
    if table.get("enabled", True) is False:
        return None
    names = tuple(c.name for c in corpora)
    corpus = table.get("corpus", names[0] if names else None)
    if not isinstance(corpus, str) or corpus not in names:
        raise SuiteError(f"{here}: 'corpus' must name a corpus of the suite {list(names)}, "
                         f"not {corpus!r}")
    settings = _ints(table, "settings", (101, 505), here)
    if any(s // 100 not in (1, 2, 4, 5) or not 1 <= s % 100 <= 9 for s in settings):
        raise SuiteError(f"{here}: 'settings' must be ROOT settings such as 101 or 505")
    pairs, target, timeout = (table.get("pairs", 15), table.get("target_ms", 20.0),
                              table.get("timeout_seconds", 300.0))
    if not isinstance(pairs, int) or not 5 <= pairs <= 1000:
        raise SuiteError(f"{here}: 'pairs' must be an integer from 5 to 1000")
    if not isinstance(target, int | float) or not 1 <= target <= 1000:
        raise SuiteError(f"{here}: 'target_ms' must be 1 to 1000 ms")
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise SuiteError(f"{here}: 'timeout_seconds' must be positive")
    return HeadroomSpec(corpora=(corpus,), settings=settings, pairs=pairs,
                        target_ms=float(target), timeout_seconds=float(timeout))


def _count_spec(raw: dict[str, Any], where: str, synthetic: tuple[str, ...],
                corpora: list[CorpusSpec]) -> CountSpec | None:
    value = raw.get("instructions")
    if value is None or value is False:
        return None
    table: dict[str, Any] = {} if value is True else value
    if not isinstance(table, dict):
        raise SuiteError(f"{where}: 'instructions' must be true or a table")
    unknown = set(table) - {"settings", "synthetic", "corpora"}
    if unknown:
        raise SuiteError(f"{where}: instructions: unknown keys {sorted(unknown)}")
    names = tuple(c.name for c in corpora)
    spec = CountSpec(
        settings=_ints(table, "settings", _ints(raw, "settings", (101, 404, 505), where),
                       f"{where}: instructions"),
        synthetic=_strs(table, "synthetic", synthetic, f"{where}: instructions"),
        corpora=_strs(table, "corpora", names, f"{where}: instructions"),
    )
    strangers = [n for n in spec.corpora if n not in names] + [
        n for n in spec.synthetic if n not in synthetic]
    if strangers:
        raise SuiteError(f"{where}: instructions: {strangers} are not datasets of the suite")
    if not spec.synthetic and not spec.corpora:
        raise SuiteError(f"{where}: instructions: no dataset to count")
    return spec


_IO_CHOICES = {"forms": ("ttree", "rntuple"), "caches": ("on", "off"),
               "page_caches": ("warm", "cold")}


def _io(raw: dict[str, Any], where: str) -> IoSpec | None:
    table = raw.get("io")
    if table is None:
        return None
    here = f"{where}: [io]"
    if not isinstance(table, dict):
        raise SuiteError(f"{here} must be a table")
    unknown = set(table) - {"files", "settings", "forms", "threads", "caches", "page_caches",
                            "min_samples", "target_ms"}
    if unknown:
        raise SuiteError(f"{here}: unknown key(s) {sorted(unknown)}")
    files = _strs(table, "files", (), here)
    if not files:
        raise SuiteError(f"{here}: 'files' must name at least one ROOT file")
    choices = {}
    for key, allowed in _IO_CHOICES.items():
        values = _strs(table, key, allowed, here)
        bad = [v for v in values if v not in allowed]
        if bad or not values:
            raise SuiteError(f"{here}: '{key}' must be a non-empty list of {list(allowed)}")
        choices[key] = values
    threads = _ints(table, "threads", (1,), here) if "threads" in table else ()
    if any(t < 1 for t in threads):
        raise SuiteError(f"{here}: 'threads' must be >= 1")
    return IoSpec(
        files=files, settings=_ints(table, "settings", _ints(raw, "settings", (101, 505), where),
                                    here),
        forms=choices["forms"], threads=threads, caches=choices["caches"],
        page_caches=choices["page_caches"], min_samples=int(table.get("min_samples", 5)),
        target_ms=float(table.get("target_ms", 50.0)))


def _codecs(raw: dict[str, Any], where: str) -> str | None:
    value = raw.get("codecs")
    if value is not None and (not isinstance(value, str) or not value):
        raise SuiteError(f"{where}: 'codecs' must name a codec set (host, builtin, ...)")
    return value


def load_suites(extra_dir: Path | None = None) -> dict[str, Suite]:
    suites: dict[str, Suite] = {}
    for directory in [PACKAGED_SUITES] + ([extra_dir] if extra_dir else []):
        for path in sorted(directory.glob("*.toml")):
            try:
                raw = tomllib.loads(path.read_text())
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise SuiteError(f"{path}: {exc}") from exc
            suite = parse_suite(raw, str(path))
            # Later directories (the operator's) override names and aliases.
            suites.update({name: suite for name in (suite.name, *suite.aliases)})
    return suites


def get_suite(name: str, extra_dir: Path | None = None) -> Suite:
    suites = load_suites(extra_dir)
    if name not in suites:
        raise SuiteError(f"unknown suite {name!r}; known: {sorted(suites)}")
    return suites[name]
