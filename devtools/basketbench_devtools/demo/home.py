"""The demo's home folder (default .basketbench/): where its token, suites, worker folder,
corpora and server log live, and the environment that points the API and its embedded
worker there."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DemoPaths:
    home: Path

    @property
    def token(self) -> Path:
        """The user token: the demo triggers its runs with it."""
        return self.home / "demo-token"

    @property
    def machine_token(self) -> Path:
        """The machine token of the embedded worker (it registers, claims and reports)."""
        return self.home / "demo-machine-token"

    @property
    def suites(self) -> Path:
        return self.home / "suites"

    @property
    def worker(self) -> Path:
        return self.home / "worker"

    @property
    def corpora(self) -> Path:
        return self.worker / "corpora"

    @property
    def server_log(self) -> Path:
        return self.home / "server.log"


def demo_environment(paths: DemoPaths, root: Path, url: str, dist: Path | None) -> dict[str, str]:
    """The database and broker may come from the caller (BASKETBENCH_DATABASE_URL /
    BROKER_URL / DATA_DIR); what the embedded worker measures is always this checkout,
    with rzbench's own codec layer (the `rootcompat` profile), in the demo's home."""
    env = dict(os.environ)
    env.setdefault("BASKETBENCH_DATA_DIR", str(paths.home))
    env["BASKETBENCH_ROOT_REPO"] = str(root)
    env["BASKETBENCH_PROFILE"] = "rootcompat"
    env["BASKETBENCH_WORKER_DIR"] = str(paths.worker)
    env["BASKETBENCH_SUITES_DIR"] = str(paths.suites)
    env["BASKETBENCH_API_URL"] = url
    if dist is not None:
        env.setdefault("BASKETBENCH_FRONTEND_DIST", str(dist))
    return env
