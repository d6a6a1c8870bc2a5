"""What the demo puts in the database before it measures: the schema (`basketbench db
upgrade`), its API tokens (a user token that triggers runs, in the home's demo-token file,
and the embedded worker's machine token, in demo-machine-token) and the commit of this
checkout with its git metadata.

The schema and a new token go through the `basketbench` CLI, as a user would. Checking the
saved token and storing the commit use the API's own database code (basketbench.core.db,
.core.tokens, .catalog) directly rather than HTTP: the token is checked before the API
starts (the embedded worker receives it in the API's environment), and the API has no
route that stores a commit with its author, date and message (POST /trigger stores the
bare sha; the GitHub webhook needs a signed payload and also queues runs).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from basketbench_devtools.demo.checkout import DEMO_REPOSITORY
from basketbench_devtools.demo.console import DemoError
from basketbench_devtools.demo.home import DemoPaths

if TYPE_CHECKING:
    from basketbench.catalog.commits import CommitInfo
    from basketbench.core.config import Settings


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "basketbench.cli", *args],
        env=env, capture_output=True, text=True, check=False,
    )


def migrate(env: dict[str, str]) -> None:
    done = run_cli(["db", "upgrade"], env)
    if done.returncode != 0:
        raise DemoError(f"database migration failed:\n{done.stderr or done.stdout}")


def create_token(env: dict[str, str], path: Path, scope: str) -> str:
    name = "demo" if scope == "user" else f"demo-{scope}"
    done = run_cli(["token", "create", "--scope", scope, "--name", name], env)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise DemoError(f"basketbench token create failed:\n{done.stderr or done.stdout}")
    token = lines[-1].strip()
    path.write_text(token + "\n")
    path.chmod(0o600)
    return token


def token_is_valid(token: str, scope: str) -> bool:
    """An active token of exactly ``scope`` (a token saved by a demo from before scopes,
    now an admin token, is replaced by a narrower one)."""
    if not token:
        return False
    from basketbench.core.config import Settings
    from basketbench.core.db import make_engine, make_sessionmaker
    from basketbench.core.tokens import authenticate

    engine = make_engine(Settings())
    try:
        with make_sessionmaker(engine)() as session:
            found = authenticate(session, token)
            return found is not None and found.scope == scope
    finally:
        engine.dispose()


def demo_token(env: dict[str, str], paths: DemoPaths, scope: str = "user") -> str:
    """The saved token of ``scope`` ("user" or "machine"), or a new one the first time or
    on a database made anew since."""
    path = paths.token if scope == "user" else paths.machine_token
    token = path.read_text().strip() if path.is_file() else ""
    if not token_is_valid(token, scope):
        token = create_token(env, path, scope)
    return token


def record_commit(settings: Settings, info: CommitInfo) -> None:
    """Store the demo commit with its git metadata (or fill it in on a commit stored bare
    by an earlier version), before the run is triggered."""
    from basketbench.catalog.commits import store_commits
    from basketbench.catalog.lookup import get_repository
    from basketbench.core.db import make_engine, make_sessionmaker

    engine = make_engine(settings)
    try:
        with make_sessionmaker(engine)() as session:
            repo = get_repository(session, DEMO_REPOSITORY, create=True)
            store_commits(session, repo, [info])
            session.commit()
    finally:
        engine.dispose()
