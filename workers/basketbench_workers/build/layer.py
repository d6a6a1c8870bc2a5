"""A per-commit build's loadable compression layer: <entry>/layer/{libbbzip.so, layer.json}.

rzbench `ab` loads two layers into one process (dlopen RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
to measure them interleaved. The layer is linked from the same archive rzbench links
statically (prefix/lib/libRootZip.a: ROOT's compression files and, with a pinned codec set,
the pinned codec copies), so both measure the same objects. It exports only the RZip C API
(a version script hides everything else), and -Bsymbolic binds its internal calls to its own
copies, so two layers in one process never call into each other's codecs. Libraries of the
host codec set are linked as the host's shared libraries, as rzbench links them.

layer.json: {"commit": sha, "profile": name, "codec_versions": {library: version}}, the
versions being the pinned ones or, for host libraries, those the harness reports.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from basketbench_workers.build.profiles import Profile
from basketbench_workers.build.toolchain import Toolchain
from basketbench_workers.procs import Deadline, StageFailed, capture, run_logged
from basketbench_workers.sandbox import Sandbox, SandboxUnavailable

LAYER_DIR = "layer"
LAYER_NAME = "libbbzip.so"
LAYER_JSON = "layer.json"
# The C API rzbench resolves with dlsym; nothing else leaves the layer.
EXPORTED = ("R__zipMultipleAlgorithm", "R__unzip", "R__unzip_header", "R__SetZipMode")
REQUIRED = EXPORTED[:3]


def layer_path(entry: Path) -> Path:
    return entry / LAYER_DIR / LAYER_NAME


def complete_layer(entry: Path) -> Path | None:
    """The entry's layer when it was linked completely (layer.json is written last)."""
    so = layer_path(entry)
    return so if so.is_file() and (so.parent / LAYER_JSON).is_file() else None


def link_layer(
    entry: Path,
    profile: Profile,
    toolchain: Toolchain,
    log: Path,
    deadline: Deadline,
    commit: str,
    host_libraries: dict[str, str],
) -> Path:
    """Link <entry>/prefix/lib/libRootZip.a into <entry>/layer/libbbzip.so; StageFailed
    (with the linker's log) when the archive is missing, not position-independent or lacks
    the RZip functions."""
    archive = entry / "prefix" / "lib" / "libRootZip.a"
    if not archive.is_file():
        raise StageFailed(f"no compression library to link a layer from ({archive.name})")
    record = _rootzip_record(entry)
    layer_dir = entry / LAYER_DIR
    partial = entry / f"{LAYER_DIR}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    script = partial / "exports.map"
    script.write_text("{\n  global:\n" + "".join(f"    {name};\n" for name in EXPORTED)
                      + "  local: *;\n};\n")
    so = partial / LAYER_NAME
    libraries = [str(x) for x in record.get("link_libraries", profile.link_libraries)]
    cmd: list[str | Path] = [toolchain.cxx, "-shared", "-fPIC", "-o", so,
           "-Wl,--whole-archive", archive, "-Wl,--no-whole-archive",
           "-Wl,-Bsymbolic", "-Wl,--no-undefined", f"-Wl,--version-script={script}",
           *(f"-l{name}" for name in libraries), "-lpthread"]
    # the log names the build's own folder, not where the worker keeps it (run logs are public)
    run_logged(cmd, log, deadline, shown=[str(a).replace(str(entry), "$BUILD") for a in cmd])
    missing = [name for name in REQUIRED if name not in _dynamic_symbols(so)]
    if missing:
        raise StageFailed(f"the linked layer does not export {missing} (C linkage expected)")
    script.unlink()
    (partial / LAYER_JSON).write_text(json.dumps({
        "commit": commit,
        "profile": profile.name,
        "profile_version": profile.version,
        "codec_versions": codec_versions(record, host_libraries),
    }, indent=2) + "\n")
    shutil.rmtree(layer_dir, ignore_errors=True)
    partial.rename(layer_dir)
    return layer_dir / LAYER_NAME


def codec_versions(record: dict[str, Any], host_libraries: dict[str, str]) -> dict[str, str]:
    """Pinned codec versions (rootzip.json's codecs) over the host's for the rest."""
    versions = {str(k): str(v) for k, v in host_libraries.items()}
    for codec in record.get("codecs") or []:
        if isinstance(codec, dict) and "library" in codec and "version" in codec:
            versions[str(codec["library"])] = str(codec["version"])
    return versions


def host_libraries(rzbench: Path, sandbox: Sandbox | None = None) -> dict[str, str]:
    """The codec library versions `rzbench fingerprint` reports (those it links). A commit's
    rzbench holds the commit's code (run at its start): with a sandbox it runs in it."""
    try:
        if sandbox is not None and sandbox.enabled:
            done = sandbox.run([str(rzbench), "fingerprint"], rzbench.resolve().parent,
                               sandbox.limits(120), readable=[rzbench.resolve().parent],
                               timeout=300)
            if done.returncode != 0:
                return {}
            out = done.stdout
        else:
            out = capture([str(rzbench), "fingerprint"])
        found = json.loads(out).get("libraries") or {}
    except (OSError, ValueError, subprocess.SubprocessError, SandboxUnavailable):
        return {}
    return {str(k): str(v) for k, v in found.items() if v is not None}


def _rootzip_record(entry: Path) -> dict[str, Any]:
    try:
        record = json.loads((entry / "prefix" / "rootzip.json").read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _dynamic_symbols(so: Path) -> set[str]:
    try:
        out = capture(["nm", "-D", "--defined-only", str(so)])
    except (OSError, subprocess.SubprocessError) as exc:
        raise StageFailed(f"cannot list the layer's symbols: {exc}") from exc
    return {line.split()[-1] for line in out.splitlines() if line.strip()}
