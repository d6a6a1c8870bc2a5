"""End-to-end ROOT I/O per setting with a real ROOT release: `basketbench run --io FILE.root`.

For each tree of the file, each form (TTree, RNTuple) and each setting: write a full copy and
read it back, every measurement in a process of its own (`pyroot_io`, the release's PyROOT);
writes at 1..N implicit-MT threads, reads at 1..N threads x cache on/off x page cache warm/cold.
The same release's rzbench then measures the codec alone on the copy's baskets, so that each
read stands beside its decompression ("of a 505 read, X % is decompression").

The result is a harness-result-v1 document: modes `io-write` (compress_mbps = write MB/s) and
`io-read` (decompress_mbps = read MB/s), threads in `threads`, the form, cache and page-cache
state in the dataset name (`<file>/<tree>/<form>` for writes and for the codec-only rows,
`<file>/<tree>/<form>/cache-<on|off>/<warm|cold>` for reads) and in the result's `io` object
(events, events/s). MB/s counts uncompressed bytes as ROOT reports them for the copy
(TTree::GetTotBytes; RNTuple: the page bytes unzipped, its reader's szUnzip counter).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from basketbench.measure.digests import file_sha256
from basketbench.measure.realroot import releases as root_release
from basketbench.measure.rootio.extract import TREE_CLASSES, extract_corpus
from basketbench.measure.rzbench.runner import BenchOptions, RzbenchError, run_bench

SCRIPT = Path(__file__).with_name("pyroot_io.py")
FORMS = ("ttree", "rntuple")
CACHES = ("on", "off")
PAGE_CACHES = ("warm", "cold")
CODECS = {0: "none", 1: "zlib", 2: "lzma", 3: "cs", 4: "lz4", 5: "zstd"}
DEFAULT_RELEASE = "6.40.00"

Say = Callable[[str], None]


class IoBenchError(RuntimeError):
    """A measurement process that failed: the message names the step and ROOT's last words."""


@dataclass
class IoOptions:
    file: Path
    settings: list[int]
    release: str = DEFAULT_RELEASE
    trees: list[str] = field(default_factory=list)  # empty: every TTree of the file
    forms: list[str] = field(default_factory=lambda: list(FORMS))
    threads: list[int] = field(default_factory=lambda: list(range(1, (os.cpu_count() or 1) + 1)))
    caches: list[str] = field(default_factory=lambda: list(CACHES))
    page_caches: list[str] = field(default_factory=lambda: list(PAGE_CACHES))
    samples: int = 5
    target_ms: float = 50.0  # passes per sample so that one sample takes about this long
    codec: bool = True  # the rzbench codec-only rows beside the reads
    context: dict[str, Any] = field(default_factory=dict)


def list_trees(path: Path) -> list[str]:
    """The TTrees at the top of a ROOT file (latest cycles), by name."""
    import uproot

    with uproot.open(path) as f:
        names = {key.split(";")[0] for key, cls in f.classnames().items()
                 if cls in TREE_CLASSES and "/" not in key}
    return sorted(names)


def work_dir(release: str) -> Path:
    """Where the stored (setting 0) copy of each input is kept between runs; each run
    writes its measured copies in a private directory below (``run_copies``)."""
    return root_release.cache_dir().parent / "io" / release


@contextmanager
def run_copies(base: Path) -> Iterator[Path]:
    """A directory of this run's own, removed after it: every sample rewrites its copies
    (RECREATE), so two runs on one file must never share them."""
    base.mkdir(parents=True, exist_ok=True)
    private = Path(tempfile.mkdtemp(prefix="run-", dir=base))
    try:
        yield private
    finally:
        shutil.rmtree(private, ignore_errors=True)


def store_atomically(base: Path, name: str, write: Callable[[Path], None]) -> Path:
    """``base/name`` written once through a private partial file renamed into place: a
    reader sees the whole file or none (two runs may write it at once; the last rename
    wins with an identical file)."""
    final = base / name
    if final.is_file():
        return final
    fd, partial_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".partial.root", dir=base)
    os.close(fd)
    partial = Path(partial_name)
    try:
        partial.unlink()  # ROOT creates it (RECREATE); the name is ours alone
        write(partial)
        os.replace(partial, final)
    finally:
        partial.unlink(missing_ok=True)
    return final


def measure(release: root_release.Release, spec: dict[str, Any], timeout: float = 900
            ) -> dict[str, Any]:
    """One pyroot_io process with the release's PyROOT; its JSON answer."""
    env = {**os.environ, "PYTHONPATH": str(root_release.release_dir(release)),
           "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, str(SCRIPT), json.dumps(spec)], env=env,
                          capture_output=True, text=True, check=False, timeout=timeout)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        raise IoBenchError(
            f"{spec['op']} {spec['form']} of {spec.get('target')} failed (exit "
            f"{done.returncode}): {_last_words(done.stderr or done.stdout)}")
    answer: dict[str, Any] = json.loads(lines[-1])
    return answer


def _last_words(text: str) -> str:
    """ROOT's error lines and the exception, without the Python traceback around them."""
    lines = [ln for ln in text.strip().splitlines()
             if ln.strip() and not ln.startswith(("  ", "Traceback"))]
    return " | ".join(lines[-4:])[-800:]


def stats(values: Sequence[float]) -> dict[str, Any]:
    mean = statistics.fmean(values)
    stddev = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "mean": mean, "stddev": stddev, "cv": stddev / mean if mean else 0.0,
            "samples": list(values)}


def _result(dataset: str, setting: int, mode: str, threads: int, io: dict[str, Any],
            seconds: list[float], uncompressed: int, compressed: int) -> dict[str, Any]:
    algorithm, level = divmod(setting, 100)
    mbps = stats([uncompressed / s / 1e6 for s in seconds])
    io["events_per_s"] = stats([io["events"] / s for s in seconds])
    io["seconds"] = seconds
    return {
        "dataset": dataset, "codec": "none" if level == 0 else CODECS[algorithm],
        "setting": setting, "algorithm": algorithm, "level": level, "preconditioner": "none",
        "dictionary_size": 0, "basket_size": 0, "mode": mode, "threads": threads,
        "uncompressed_bytes": uncompressed, "compressed_bytes": compressed,
        "ratio": uncompressed / compressed if compressed else 0.0,
        "compress_mbps": mbps if mode == "io-write" else None,
        "decompress_mbps": mbps if mode == "io-read" else None,
        "roundtrip_ok": True, "error": None, "io": io,
    }


def _failed(dataset: str, setting: int, mode: str, threads: int, io: dict[str, Any],
            error: str) -> dict[str, Any]:
    algorithm, level = divmod(setting, 100)
    return {
        "dataset": dataset, "codec": "none" if level == 0 else CODECS[algorithm],
        "setting": setting, "algorithm": algorithm, "level": level, "preconditioner": "none",
        "dictionary_size": 0, "basket_size": 0, "mode": mode, "threads": threads,
        "uncompressed_bytes": 0, "compressed_bytes": 0, "ratio": 0.0, "compress_mbps": None,
        "decompress_mbps": None, "roundtrip_ok": False, "error": error, "io": io,
    }


@dataclass
class Copy:
    """One written copy: tree x form x setting."""

    tree: str
    form: str
    setting: int
    path: Path
    dataset: str


def run_io(options: IoOptions, json_out: Path, binary: Path | None = None,
           say: Say = lambda _m: None) -> dict[str, Any]:
    """Measure everything `options` asks for and write the result document to json_out."""
    release = root_release.lookup(options.release)
    root_release.check_platform()
    root_release.install(release, say)
    if binary is None and options.codec:
        binary = root_release.build_rzbench(release, say=say)
    trees = options.trees or list_trees(options.file)
    if not trees:
        raise IoBenchError(f"{options.file}: no TTree at the top of the file")
    base = work_dir(release.version) / f"{options.file.stem}-{file_sha256(options.file)[:16]}"
    base.mkdir(parents=True, exist_ok=True)
    results: list[dict[str, Any]] = []
    copies: list[Copy] = []
    stem = options.file.stem
    codecs: dict[str, Any] = {"set": release.codec_set, "root_version": release.version,
                              "libraries": {}}
    machine: dict[str, Any] | None = None
    with run_copies(base) as own:
        for tree in trees:
            # The source of every write (no decompression in the timing), shared by runs.
            def write_stored(target: Path, tree: str = tree) -> None:
                say(f"{stem}/{tree}: stored copy (setting 0)")
                measure(release, {"op": "write", "form": "ttree", "source": str(options.file),
                                  "tree": tree, "target": str(target), "setting": 0,
                                  "samples": 1})

            stored = store_atomically(base, f"{tree}-stored.root", write_stored)
            original = measure(release, {"op": "checksum", "form": "ttree", "tree": tree,
                                         "target": str(options.file), "samples": 1})
            original["path"] = str(options.file)
            for form in options.forms:
                dataset = f"{stem}/{tree}/{form}"
                for setting in options.settings:
                    target = own / f"{tree}-{form}-{setting}.root"
                    copy = Copy(tree, form, setting, target, dataset)
                    results += _measure_copy(release, options, stored, copy, original, say)
                    if target.is_file():
                        copies.append(copy)
        if options.codec and binary is not None:
            machine, codecs, codec_rows = _codec_only(binary, options, copies, say)
            results += codec_rows
    if machine is None:
        machine = _machine(binary)
    doc = {
        "schema_version": "1",
        "tool": {"name": "basketbench-io", "version": "1"},
        "created_at": _now(),
        "backend": "root",
        "root_commit": None,
        "codecs": codecs,
        "machine": machine,
        "parameters": {"min_samples": options.samples, "target_pass_ms": options.target_ms,
                       "io": {"release": release.version, "page_cache_cold":
                              "posix_fadvise(DONTNEED) of the copy before each sample"}},
        "datasets": [{"name": name, "source": str(options.file), "bytes": 0, "baskets": 0,
                      "checksum": ""} for name in sorted({r["dataset"] for r in results})],
        "results": results,
    }
    if options.context:
        doc["context"] = options.context
    json_out.write_text(json.dumps(doc, indent=1))
    return doc


def verify_copy(release: root_release.Release, copy: Copy, original: dict[str, Any]
                ) -> dict[str, Any]:
    """Read the whole copy back once and compare it with the original: the entries, and for a
    TTree a checksum of every value of every leaf (FNV-1a over each entry's leaf lengths and
    values as doubles); for an RNTuple the sum and count of every numeric column's values
    (RDataFrame reads both forms). Raises IoBenchError on a difference; returns the copy's
    answer."""
    got = measure(release, {"op": "checksum" if copy.form == "ttree" else "colsums",
                            "form": copy.form, "tree": copy.tree, "target": str(copy.path),
                            "samples": 1})
    if got["entries"] != original["entries"]:
        raise IoBenchError(f"{copy.path.name}: {got['entries']} entries read back, the original "
                           f"has {original['entries']}")
    if copy.form == "ttree" and got["checksum"] != original["checksum"]:
        raise IoBenchError(f"{copy.path.name}: the values read back differ from the original "
                           f"(checksum {got['checksum']}, original {original['checksum']})")
    if copy.form == "rntuple":
        sums = original.get("columns")
        if sums is None:  # the original's column sums, once per tree
            sums = original["columns"] = measure(release, {
                "op": "colsums", "form": "ttree", "tree": copy.tree,
                "target": original["path"], "samples": 1})["columns"]
        differ = sorted(c for c in sums if got["columns"].get(c) != sums[c])
        if differ:
            raise IoBenchError(f"{copy.path.name}: {len(differ)} column(s) read back differ from "
                               f"the original's values: {', '.join(differ[:5])}")
    return got


def _measure_copy(release: root_release.Release, options: IoOptions, stored: Path, copy: Copy,
                  original: dict[str, Any], say: Say) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    writes: list[tuple[int, dict[str, Any]]] = []
    common = {"form": copy.form, "tree": copy.tree, "target": str(copy.path),
              "samples": options.samples, "target_ms": options.target_ms}
    for threads in options.threads:
        say(f"{copy.dataset} {copy.setting}: write, {threads} thread(s)")
        io = {"form": copy.form, "op": "write", "threads": threads}
        try:
            writes.append((threads, measure(release, {**common, "op": "write",
                                                      "source": str(stored),
                                                      "setting": copy.setting,
                                                      "threads": threads})))
        except IoBenchError as exc:
            out.append(_failed(copy.dataset, copy.setting, "io-write", threads, io, str(exc)))
    sizes: dict[str, Any] | None = None
    verified: dict[str, Any] | None = None
    try:
        verified = verify_copy(release, copy, original) if writes else None
    except IoBenchError as exc:
        for threads, _got in writes:  # written, but the copy is wrong: no number for it
            out.append(_failed(copy.dataset, copy.setting, "io-write", threads,
                               {"form": copy.form, "op": "write", "threads": threads}, str(exc)))
        for threads in options.threads:
            for cache in options.caches:
                for page_cache in options.page_caches:
                    io = {"form": copy.form, "op": "read", "threads": threads, "cache": cache,
                          "page_cache": page_cache}
                    out.append(_failed(f"{copy.dataset}/cache-{cache}/{page_cache}",
                                       copy.setting, "io-read", threads, io, str(exc)))
        return out
    for threads in options.threads:
        for cache in options.caches:
            for page_cache in options.page_caches:
                dataset = f"{copy.dataset}/cache-{cache}/{page_cache}"
                io = {"form": copy.form, "op": "read", "threads": threads, "cache": cache,
                      "page_cache": page_cache}
                if copy.form == "ttree":
                    io["checksum"] = (verified or {}).get("checksum")
                    io["original_checksum"] = original["checksum"]
                else:
                    io["columns_compared"] = len((verified or {}).get("columns", {}))
                say(f"{dataset} {copy.setting}: read, {threads} thread(s)")
                try:
                    got = measure(release, {**common, "op": "read", "threads": threads,
                                            "cache": cache == "on", "page_cache": page_cache})
                except IoBenchError as exc:
                    out.append(_failed(dataset, copy.setting, "io-read", threads, io, str(exc)))
                    continue
                sizes = sizes or got
                io["events"] = got["entries"]
                out.append(_result(dataset, copy.setting, "io-read", threads, io,
                                   got["seconds"], got["uncompressed_bytes"],
                                   got["compressed_bytes"]))
    for threads, got in writes:
        # an RNTuple write reports no sizes of its own: those of its read are the same copy
        ref = got if got["uncompressed_bytes"] else sizes
        io = {"form": copy.form, "op": "write", "threads": threads,
              "events": (ref or got)["entries"]}
        if not ref or not ref["uncompressed_bytes"]:
            out.append(_failed(copy.dataset, copy.setting, "io-write", threads, io,
                               "no read of the copy succeeded: its size is unknown"))
            continue
        out.append(_result(copy.dataset, copy.setting, "io-write", threads, io, got["seconds"],
                           ref["uncompressed_bytes"], ref["compressed_bytes"]))
    return out


def _codec_only(binary: Path, options: IoOptions, copies: list[Copy], say: Say
                ) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """rzbench of the same release on each TTree copy's baskets, at every setting: the codec
    alone. The baskets' uncompressed payloads do not depend on the setting, so one corpus per
    tree (from the first setting's copy) serves all settings."""
    rows: list[dict[str, Any]] = []
    machine: dict[str, Any] = {}
    codecs: dict[str, Any] = {}
    first_by_dataset: dict[str, Copy] = {}
    for c in copies:
        if c.form == "ttree":
            first_by_dataset.setdefault(c.dataset, c)
    with tempfile.TemporaryDirectory(prefix="io-codec-") as tmp:
        for dataset, copy in first_by_dataset.items():
            say(f"{dataset}: codec only (rzbench)")
            corpus = Path(tmp) / f"{copy.tree}.bbc"
            extract_corpus([copy.path], corpus, name=dataset, tree=copy.tree)
            doc_path = Path(tmp) / f"{copy.tree}.json"
            try:
                run_bench(BenchOptions(corpora=[corpus], settings=options.settings,
                                       min_samples=max(options.samples, 5), target_ms=50,
                                       memcpy=False), doc_path, binary=binary)
            except RzbenchError as exc:
                raise IoBenchError(f"rzbench on {dataset} failed: {exc}") from exc
            doc = json.loads(doc_path.read_text())
            machine, codecs = doc["machine"], doc.get("codecs", {})
            for row in doc["results"]:
                row["dataset"] = dataset
                rows.append(row)
    return machine, codecs, rows


def _machine(binary: Path | None) -> dict[str, Any]:
    if binary is None:
        raise IoBenchError("no rzbench to take the machine fingerprint from")
    with tempfile.TemporaryDirectory(prefix="io-machine-") as tmp:
        out = Path(tmp) / "m.json"
        run_bench(BenchOptions(synthetic=["random"], settings=[101], min_samples=1,
                               target_ms=0, memcpy=False), out, binary=binary)
        machine: dict[str, Any] = json.loads(out.read_text())["machine"]
    return machine


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
