"""`basketbench arena`: "what would switching ROOT's X to Y do?" on one ROOT file (docs/arena.md).

Per candidate codec (candidates.py) and level, on the file's own buffers (every basket or page,
and per data shape): the exact compressed bytes with ROOT's 9-byte framing against ROOT's
current setting of the same family, byte-exact round trips, whether ROOT's layer reads the
candidate's output, and the compression / decompression speed as interleaved A/B ratios against
ROOT's layer in one rzbench process (`rzbench ab --b-codecs`, docs/perf/ab.md), statistics
recomputed and checked here as for `basketbench ab`. With `count`, the instructions per MB
of one compress and one decompress pass of each candidate and of ROOT's layer, counted under
callgrind (`rzbench ab --count`, counting.py).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from basketbench.measure.ab.run import ABInputError, Side, document_from_raw, resolve_build
from basketbench.measure.arena.build import BuildError, BuiltLayer, build_layer
from basketbench.measure.arena.candidates import (
    DEBIAN_LZ4,
    DEBIAN_ZSTD,
    DEFAULT_LZ4,
    DEFAULT_ZSTD,
    Candidate,
    catalogue,
    reference_setting,
)
from basketbench.measure.arena.counting import (
    CountingUnavailable,
    Counts,
    callgrind_command,
    per_mb,
    read_counts,
    valgrind_binary,
)
from basketbench.measure.arena.shapes import file_corpora
from basketbench.measure.arena.sources import SourceUnavailable, default_cache
from basketbench.measure.digests import file_sha256
from basketbench.measure.rootio.extract import ExtractionError, check_root_header
from basketbench.measure.rzbench.runner import Launcher

SCHEMA = "basketbench-arena-v1"
DEFAULT_PAIRS = 11
DEFAULT_TARGET_MS = 20.0
Say = Callable[[str], None]


class ArenaInputError(ValueError):
    """Bad input (no such file, not a ROOT file, unknown candidate or level): CLI exit 2."""


class ArenaError(RuntimeError):
    """The measurement failed (a build, rzbench, a statistic that did not verify)."""


def _quiet(_m: str) -> None:
    return None


def _loadavg() -> list[float | None]:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return [None, None, None]


def machine_info() -> dict[str, Any]:
    cpu = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"hostname": platform.node(), "cpu_model": cpu, "cores": os.cpu_count(),
            "hardware_tag": os.environ.get("BASKETBENCH_HARDWARE_TAG")}


def parse_candidates(spec: str | Sequence[str] | None, known: Sequence[str]
                     ) -> list[tuple[str, tuple[int, ...] | None]]:
    """`zlib-ng,zstd:3/10/19` -> [("zlib-ng", None), ("zstd", (3, 10, 19))]."""
    if spec is None:
        return [(n, None) for n in known]
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[tuple[str, tuple[int, ...] | None]] = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        name, _, levels = item.partition(":")
        if name not in known:
            raise ArenaInputError(f"unknown candidate {name!r} (known: {', '.join(known)})")
        chosen: tuple[int, ...] | None = None
        if levels:
            try:
                chosen = tuple(int(v) for v in levels.split("/") if v.strip())
            except ValueError as exc:
                raise ArenaInputError(f"candidate {item!r}: levels must be integers "
                                      "separated by '/'") from exc
            if not chosen:
                raise ArenaInputError(f"candidate {item!r} names no level")
        out.append((name, chosen))
    if not out:
        raise ArenaInputError("no candidate given")
    return out


def _check_levels(c: Candidate, levels: tuple[int, ...]) -> None:
    bounds = {"zlib": (1, 9), "zstd": (-131072, 22), "lz4": (-65537, 12)}[c.family]
    if c.recipe == "libdeflate":
        bounds = (1, 12)
    bad = [lv for lv in levels if not bounds[0] <= lv <= bounds[1] or (c.family == "zstd"
                                                                        and lv == 0)]
    if bad or (c.family == "lz4" and 2 in levels):
        raise ArenaInputError(f"candidate {c.name}: level(s) {bad or [2]} outside "
                              f"{bounds[0]}..{bounds[1]} (zstd: no 0; lz4: -N, 1, 3..12)")


def _rzbench_ab(rzbench: Path, a_layer: str, b_layer: str, corpora: Sequence[Path],
                settings: Sequence[int], b_codecs: Sequence[tuple[int, int]], pairs: int,
                target_ms: float, out: Path, launcher: Launcher | None = None
                ) -> dict[str, Any]:
    cmd = [str(rzbench), "ab", "--a", a_layer, "--b", b_layer,
           "--settings", ",".join(map(str, settings)),
           "--b-codecs", ",".join(f"{a}:{lv}" for a, lv in b_codecs),
           "--pairs", str(pairs), "--target-ms", f"{target_ms:g}", "--json", str(out)]
    for c in corpora:
        cmd += ["--corpus", str(c)]
    if launcher is not None:  # ROOT's layer is a commit's code: rzbench runs sandboxed
        cmd = launcher(cmd, [out.parent])
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode == 2:
        lines = done.stderr.strip().splitlines()
        raise ArenaInputError(lines[0].removeprefix("rzbench: ") if lines else "rzbench refused")
    if done.returncode not in (0, 1) or not out.is_file():
        raise ArenaError(f"rzbench ab failed (exit {done.returncode}): "
                         f"{done.stderr.strip()[-800:]}")
    raw: dict[str, Any] = json.loads(out.read_text())
    return raw


def _count_candidate(rzbench: Path, valgrind: str, a_layer: str, b_layer: str, corpus: Path,
                     settings: Sequence[int], b_codecs: Sequence[tuple[int, int]], tmp: Path,
                     tag: str, launcher: Launcher | None = None) -> tuple[dict[str, Any], Counts]:
    """`rzbench ab --count` under callgrind: the run's document and its counts per result."""
    dumps = tmp / f"callgrind-{tag}"
    dumps.mkdir()
    out = tmp / f"{tag}-counted.json"
    cmd = [*callgrind_command(valgrind, dumps), str(rzbench), "ab", "--a", a_layer,
           "--b", b_layer, "--settings", ",".join(map(str, settings)),
           "--b-codecs", ",".join(f"{a}:{lv}" for a, lv in b_codecs), "--count",
           "--corpus", str(corpus), "--json", str(out)]
    if launcher is not None:
        cmd = launcher(cmd, [tmp])
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1) or not out.is_file():
        lines = [ln for ln in done.stderr.strip().splitlines() if ln.startswith("rzbench:")]
        raise ArenaError(f"rzbench ab --count under callgrind failed (exit {done.returncode}): "
                         f"{(lines[0] if lines else done.stderr.strip()[-800:])}")
    raw: dict[str, Any] = json.loads(out.read_text())
    try:
        return raw, read_counts(dumps)
    except ValueError as exc:
        raise ArenaError(f"callgrind's dumps: {exc}") from exc


def _fill_counts(entries: Sequence[dict[str, Any]], raw: dict[str, Any], counts: Counts) -> None:
    """The counted run's instructions per MB into the whole-file entries of one candidate (the
    same settings in the same order as the timed run)."""
    if len(entries) != len(raw["results"]):
        raise ArenaError("the counted run has not the timed run's results")
    for index, (entry, r) in enumerate(zip(entries, raw["results"], strict=True)):
        if (int(r["setting"]) != entry["reference_setting"]
                or int(r["b_codec"]["level"]) != entry["level"]):
            raise ArenaError("the counted run measured other settings than the timed run")
        if r["error"] is not None or not r.get("counted"):
            continue  # a failed round trip is no number (the timed run says why)
        size = int(r["uncompressed_bytes"])
        for side, prefix in (("b", ""), ("a", "reference_")):
            for op in ("compress", "decompress"):
                instructions = counts.get((index, side, op))
                if instructions is None:
                    raise ArenaError(f"callgrind wrote no count for result {index} side {side} "
                                     f"{op}")
                entry[f"{prefix}{op}_instructions"] = per_mb(instructions, size)


def valgrind_version(valgrind: str) -> str:
    done = subprocess.run([valgrind, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "valgrind"


def _ratio(effect: dict[str, Any] | None) -> dict[str, Any] | None:
    """The contract's ratio object; null when no pair was measured. Pairs that were all
    disturbed keep their count with a null median, so the document says why there is none."""
    if not effect or effect.get("pairs", 0) + effect.get("disturbed_pairs", 0) == 0:
        return None
    return {"median": effect["ratio"], "ci_low": effect["ci_low"],
            "ci_high": effect["ci_high"], "pairs": effect["pairs"],
            "disturbed_pairs": effect["disturbed_pairs"]}


def _entries(raw: dict[str, Any], doc: dict[str, Any], built: BuiltLayer
             ) -> list[tuple[str, dict[str, Any]]]:
    """(dataset, result entry) per rzbench result; statistics from the verified A/B document."""
    out = []
    c = built.candidate
    for r, verified in zip(raw["results"], doc["results"], strict=True):
        level = int(r["b_codec"]["level"])
        sizes = r.get("compressed_bytes") or {}
        cand_bytes, ref_bytes = sizes.get("b"), sizes.get("a")
        trip = r.get("roundtrip") or {}
        entry: dict[str, Any] = {
            "candidate": c.name, "family": c.family, "level": level,
            "reference_setting": int(r["setting"]),
            "compressed_bytes": cand_bytes, "reference_bytes": ref_bytes,
            "size_change_pct": (100.0 * (cand_bytes - ref_bytes) / ref_bytes
                                if cand_bytes is not None and ref_bytes else None),
            "identical_to_reference": r.get("identical_output"),
            "roundtrip_ok": r["error"] is None and bool(trip.get("b")) and bool(trip.get("a")),
            # ROOT's layer decoded every one of the candidate's buffers byte-exactly.
            "root_readable": bool(trip.get("a_reads_b")),
            "compress_ratio": _ratio(verified.get("compress")),
            "decompress_ratio": _ratio(verified.get("decompress")),
            "compress_instructions": None, "decompress_instructions": None,
            "reference_compress_instructions": None, "reference_decompress_instructions": None,
        }
        if r["error"] is not None:
            entry["error"] = r["error"]
        out.append((str(r["dataset"]), entry))
    return out


def _level_mapping(results: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    def row(e: dict[str, Any], root_setting: int | None) -> dict[str, Any]:
        return {"native_level": e["level"], "root_setting": root_setting,
                "reference_setting": e["reference_setting"],
                "compressed_bytes": e["compressed_bytes"], "reference_bytes": e["reference_bytes"],
                "size_change_pct": e["size_change_pct"],
                "identical_to_reference": e["identical_to_reference"],
                "compress_ratio": e["compress_ratio"], "decompress_ratio": e["decompress_ratio"]}

    zstd = sorted((e for e in results if e["candidate"] == "zstd" and 3 <= e["level"] <= 19),
                  key=lambda e: (e["level"] != 10, e["level"]))
    # ROOT's setting 50L runs zstd level 2L (L = 1..9): the native levels ROOT can reach.
    mapping = {"zstd": [row(e, 500 + e["level"] // 2 if e["level"] % 2 == 0 and e["level"] <= 18
                               else None) for e in zstd]}

    def lz4_root(level: int) -> int | None:  # 40L: L < 4 the fast default, else HC level L
        return 401 if level == 1 else (400 + level if 4 <= level <= 9 else None)

    lz4 = sorted((e for e in results if e["candidate"] == "lz4"),
                 key=lambda e: (e["level"] != 4, e["level"]))
    mapping["lz4"] = [row(e, lz4_root(e["level"])) for e in lz4]
    return mapping


def _reference_side(reference: str, chosen: list[str], cache: Path, say: Say) -> Side:
    """ROOT's layer (host, release:X.YY.ZZ, a build directory), or `candidate:NAME`: another
    candidate as the reference (e.g. the Cloudflare zlib ROOT shipped, against vanilla zlib:
    PR #21653's switch measured directly); then every candidate must be of its family."""
    if reference.startswith("candidate:"):
        name = reference.removeprefix("candidate:")
        table = catalogue()
        if name not in table:
            raise ArenaInputError(f"unknown reference candidate {name!r} "
                                  f"(known: {', '.join(table)})")
        family = table[name].family
        others = [c for c in chosen if table[c].family != family]
        if others:
            raise ArenaInputError(f"reference {reference} is a {family} codec: candidates "
                                  f"{', '.join(others)} are of another family")
        try:
            built = build_layer(table[name], cache, say)
        except (BuildError, SourceUnavailable) as exc:
            raise ArenaError(f"reference candidate {name}: {exc}") from exc
        return Side(reference, f"candidate {name} {built.record['version']}", str(built.layer))
    try:
        return resolve_build(reference, say)
    except ABInputError as exc:
        raise ArenaInputError(str(exc)) from exc


def _reference_versions(rzbench: Path, ref_layer: str, corpus: Path, tmp: Path,
                        launcher: Launcher | None = None) -> dict[str, str]:
    out = tmp / "probe.json"
    raw = _rzbench_ab(rzbench, ref_layer, ref_layer, [corpus], [505], [(5, 10)], 0, 1, out,
                      launcher)
    libs = raw["a"]["codecs"].get("libraries") or {}
    return {str(k): str(v) for k, v in libs.items()}


def run_arena(
    root_file: Path,
    *,
    candidates: str | Sequence[str] | None = None,
    rzbench: Path,
    reference_layer: str = "host",
    pairs: int = DEFAULT_PAIRS,
    shape_pairs: int = 0,
    target_ms: float = DEFAULT_TARGET_MS,
    cache: Path | None = None,
    say: Say = _quiet,
    launcher: Launcher | None = None,
    scratch: Path | None = None,
    count: bool = False,
) -> dict[str, Any]:
    """The basketbench-arena-v1 document for `root_file` (docs/arena.md). With a `launcher`
    (a worker's sandbox: ROOT's layer is then a commit's build), every rzbench runs through
    it, writing only into a temporary folder under `scratch`. With `count`, the instruction
    fields of the whole-file results are filled from one pass per side and direction under
    callgrind (needs valgrind: ArenaInputError when it is missing)."""
    if not root_file.is_file():
        raise ArenaInputError(f"{root_file.name}: no such file")
    try:
        check_root_header(root_file)
    except ExtractionError as exc:
        raise ArenaInputError(str(exc).replace(str(root_file), root_file.name)) from exc
    if pairs < 0 or shape_pairs < 0:
        raise ArenaInputError("pairs must be >= 0")
    if not target_ms > 0:
        raise ArenaInputError("target_ms must be > 0")
    if not rzbench.is_file():
        raise ArenaInputError(f"rzbench not found at {rzbench.name} (make harness-build)")
    valgrind: str | None = None
    if count:
        try:
            valgrind = valgrind_binary()
        except CountingUnavailable as exc:
            raise ArenaInputError(str(exc)) from exc
    chosen = parse_candidates(candidates, tuple(catalogue()))
    for name, levels in chosen:  # levels depend on the family only, not on the version
        _check_levels(catalogue()[name], levels or catalogue()[name].levels)
    cache = cache or default_cache()
    side_a = _reference_side(reference_layer, [name for name, _ in chosen], cache, say)
    load_start = _loadavg()
    with tempfile.TemporaryDirectory(prefix="basketbench-arena-", dir=scratch) as tmpdir:
        tmp = Path(tmpdir)
        say(f"extracting the buffers of {root_file.name}")
        try:
            corpora = file_corpora(root_file, tmp)
        except (ExtractionError, ValueError) as exc:
            raise ArenaInputError(str(exc).replace(str(root_file), root_file.name)) from exc
        ref_versions = _reference_versions(rzbench, side_a.layer, corpora.whole, tmp, launcher)
        zstd_v = ref_versions.get("zstd") if ref_versions.get("zstd") in DEBIAN_ZSTD else None
        lz4_v = ref_versions.get("lz4") if ref_versions.get("lz4") in DEBIAN_LZ4 else None
        table = catalogue(zstd_v or DEFAULT_ZSTD, lz4_v or DEFAULT_LZ4)
        plan = []
        for name, levels in chosen:
            c = table[name]
            plan.append((c, levels or c.levels))
        results: list[dict[str, Any]] = []
        shape_results: list[dict[str, Any]] = []
        described: list[dict[str, Any]] = []
        for c, levels in plan:
            try:
                built = build_layer(c, cache, say)
            except (BuildError, SourceUnavailable) as exc:
                raise ArenaError(f"candidate {c.name}: {exc}") from exc
            described.append({"candidate": c.name, "family": c.family,
                              "version": built.record["version"], "source": c.source.label,
                              "sha256": built.record["sha256"], "what": c.what,
                              "root_readable": None})
            settings = [reference_setting(c.family, lv) for lv in levels]
            codecs = [(c.algorithm, lv) for lv in levels]
            say(f"measuring {c.name} at levels {','.join(map(str, levels))} against "
                f"{side_a.label}: {pairs} pairs each")
            first = len(results)  # this candidate's whole-file entries start here
            for corpus_list, n_pairs, sink, tag in (
                    ([corpora.whole], pairs, results, "whole"),
                    (list(corpora.shapes.values()), shape_pairs, shape_results, "shapes")):
                out = tmp / f"{c.name}-{tag}.json"
                raw = _rzbench_ab(rzbench, side_a.layer, str(built.layer), corpus_list,
                                  settings, codecs, n_pairs, target_ms, out, launcher)
                doc = document_from_raw(raw, side_a, Side(str(built.layer), c.name,
                                                           str(built.layer)), [], [])
                for dataset, entry in _entries(raw, doc, built):
                    if tag == "shapes":
                        entry = {"shape": dataset, **entry}
                    sink.append(entry)
            if valgrind is not None:
                say(f"counting the instructions of {c.name} and of {side_a.label} under "
                    "callgrind: one pass per level and direction")
                counted, counts = _count_candidate(
                    rzbench, valgrind, side_a.layer, str(built.layer), corpora.whole, settings,
                    codecs, tmp, f"{len(described)}-{c.name}", launcher)
                _fill_counts(results[first:], counted, counts)
            readable = [e["root_readable"] for e in results if e["candidate"] == c.name]
            described[-1]["root_readable"] = bool(readable) and all(readable)
    load_end = _loadavg()
    return {
        "schema": SCHEMA,
        "file": root_file.name,
        "file_sha256": file_sha256(root_file),
        "format": corpora.format,
        "machine": machine_info(),
        "load": {"loadavg_start": load_start, "loadavg_end": load_end},
        "reference": {"layer": side_a.build, "label": side_a.label,
                      "codec_versions": ref_versions},
        "method": {"pairs": pairs, "shape_pairs": shape_pairs, "target_ms": target_ms,
                   "ratio": "candidate speed / ROOT speed (time of ROOT's layer / time of the "
                            "candidate's, per interleaved pair; median of the undisturbed "
                            "pairs and its distribution-free 95 % interval)",
                   "root_readable": "ROOT's reference layer decoded every buffer the candidate "
                                    "wrote, byte-exactly",
                   "instructions": (f"instructions (callgrind Ir, {valgrind_version(valgrind)}) "
                                    "of one pass over the whole file's buffers per MB "
                                    "(10^6 bytes) of uncompressed input"
                                    if valgrind is not None else None)},
        "buffers": corpora.buffers,
        "embedded_buffers": corpora.embedded_buffers,
        "uncompressed_bytes": corpora.uncompressed_bytes,
        "shape_buffers": corpora.shape_buffers,
        "shape_bytes": corpora.shape_bytes,
        "candidates": described,
        "results": results,
        "shapes": shape_results,
        "level_mapping": _level_mapping(results),
    }
