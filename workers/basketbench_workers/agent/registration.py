"""Register this machine with the API (fingerprint from `rzbench fingerprint`) and keep it alive.

rzbench's fingerprint includes the codec backend it was built with (rootcompat or root),
and results are stored under the fingerprint in their document. So the worker registers
with the fingerprint of the rzbench that actually measures: at start the last one it used
(remembered in a small state file), and again whenever a run's build has another one.
The heartbeat thread reads the same state file, so it always names the current machine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from pathlib import Path
from typing import Any

from basketbench.measure.rzbench.counting import record_valgrind
from basketbench.measure.whole_files import replace_text

from basketbench_workers.agent.api_client import ApiClient, ApiError, TransientApiError
from basketbench_workers.procs import StageFailed, capture
from basketbench_workers.sandbox import Sandbox

log = logging.getLogger(__name__)


def fingerprint(rzbench: Path, sandbox: Sandbox | None = None) -> dict[str, Any]:
    """What `rzbench fingerprint` prints; run in `sandbox` when rzbench holds a commit's code
    (its static initializers run at every start)."""
    if sandbox is None:
        out = capture([rzbench, "fingerprint"], timeout=60)
    else:
        done = sandbox.run([rzbench, "fingerprint"], rzbench.parent,
                           sandbox.limits(60), timeout=60)
        if done.returncode != 0:
            raise StageFailed(f"rzbench fingerprint failed (exit code {done.returncode})",
                              done.stderr[-2000:])
        out = done.stdout
        try:
            json.loads(out)
        except ValueError:
            raise StageFailed("rzbench fingerprint printed no JSON object",
                              done.stderr[-2000:]) from None
    data = json.loads(out)
    if not isinstance(data, dict):
        raise ValueError("rzbench fingerprint did not print a JSON object")
    record_valgrind({"machine": data})  # as in the documents this worker uploads
    return data


def state_file(worker_dir: Path, api_url: str, tag: str) -> Path:
    key = hashlib.sha256(f"{api_url}\n{tag}".encode()).hexdigest()[:12]
    return worker_dir / "machines" / f"{tag}-{key}.json"


def load_state(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "machine_id" in data else None


def register(api: ApiClient, name: str, tag: str, print_: dict[str, Any], state: Path) -> int:
    machine = api.register_machine(name, tag, print_)
    machine_id = int(machine["id"])
    state.parent.mkdir(parents=True, exist_ok=True)
    replace_text(state, json.dumps({"machine_id": machine_id, "name": name,
                                    "fingerprint": print_}))
    log.info(
        "registered as machine %s (%s, tag %s, %s)",
        machine_id,
        name,
        tag,
        print_.get("fingerprint_hash"),
    )
    return machine_id


def ensure_registered(api: ApiClient, name: str, tag: str, rzbench: Path, state: Path,
                      sandbox: Sandbox | None = None) -> int:
    """The machine id for results measured by `rzbench`, registering it if it is new."""
    print_ = fingerprint(rzbench, sandbox)
    known = load_state(state)
    if (
        known is not None
        and known.get("name") == name
        and known.get("fingerprint", {}).get("fingerprint_hash") == print_.get("fingerprint_hash")
    ):
        return int(known["machine_id"])
    return register(api, name, tag, print_, state)


def register_at_start(
    api: ApiClient, name: str, tag: str, default_rzbench: Path, state: Path
) -> int:
    """Re-announce the machine the worker measured with last time, else the default build's."""
    known = load_state(state)
    if (
        known is not None
        and known.get("name") == name
        and isinstance(known.get("fingerprint"), dict)
    ):
        return register(api, name, tag, known["fingerprint"], state)
    return register(api, name, tag, fingerprint(default_rzbench), state)


class Heartbeat(threading.Thread):
    """POST /machines/{id}/heartbeat every `interval` seconds until stopped."""

    def __init__(self, api: ApiClient, state: Path, interval: float) -> None:
        super().__init__(name="basketbench-heartbeat", daemon=True)
        self.api = api
        self.state = state
        self.interval = interval
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            known = load_state(self.state)
            if known is not None:
                try:
                    self.api.heartbeat(int(known["machine_id"]))
                except (TransientApiError, ApiError) as exc:
                    log.warning("heartbeat failed: %s", exc)
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
