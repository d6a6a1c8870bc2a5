"""What the README and the docs state is what the code does.

- README.md is an entry page: at most 150 lines.
- Every `make X` the README, docs/deployment.md or docs/PERFORMANCE.md names is a target of
  the Makefile or of the fragments it includes.
- Every BASKETBENCH_* name the README or docs/configuration.md gives exists (a field of the
  API's or the workers' settings class, else read by name somewhere in the code), and
  docs/configuration.md documents every field of both settings classes.
- Every row of docs/API.md's "Status codes checked by the tests" table is sent to the app,
  created in-process on a temporary SQLite database, and answers that status; every status
  the README or the configuration and deployment pages give for the webhook is in the table.
- Every relative link in README.md and docs/**/*.md points at a file that exists.

Plain pytest: no servers, no PostgreSQL.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from basketbench.app import create_app
from basketbench.core import migrate
from basketbench.core.config import Settings
from basketbench.core.tokens import create_token
from basketbench_workers.config import WorkerSettings
from fastapi.testclient import TestClient

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"
CONFIGURATION = DOCS / "configuration.md"
API = DOCS / "API.md"
MAKEFILES = [REPO / "Makefile", REPO / "bench-harness" / "harness.mk",
             REPO / "frontend" / "frontend.mk", REPO / "docker" / "compose.mk"]
# Where a setting read outside the two settings classes may be read by name.
CODE_DIRS = ["backend", "workers", "devtools", "docker", "scripts", "bench-harness", "tests"]
CODE_FILES = ["Makefile", "docker-compose.yml"]
SECRET = "readme-claims-secret"
MAX_README_LINES = 150


# --- README size and make targets -------------------------------------------------------

def test_readme_is_an_entry_page() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines"


def _make_targets() -> set[str]:
    targets: set[str] = set()
    for path in MAKEFILES:
        for line in path.read_text().splitlines():
            m = re.match(r"^([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:(?!=)", line)
            if m:
                targets.update(m.group(1).split())
            m = re.match(r"^\.PHONY\s*:(.*)$", line)
            if m:
                targets.update(m.group(1).split())
    return targets


def test_every_make_target_named_exists() -> None:
    targets = _make_targets()
    assert {"demo", "test"} <= targets
    for doc in (README, DOCS / "deployment.md", DOCS / "PERFORMANCE.md"):
        named = set(re.findall(r"\bmake ([a-z][a-z0-9-]*)", doc.read_text()))
        missing = sorted(named - targets)
        assert not missing, f"{doc.name} names make targets that do not exist: {missing}"


# --- settings ----------------------------------------------------------------------------

def _fields() -> set[str]:
    names: set[str] = set()
    for cls in (Settings, WorkerSettings):
        prefix = cls.model_config.get("env_prefix", "")
        assert prefix == "BASKETBENCH_", cls
        names |= {prefix + name.upper() for name in cls.model_fields}
    return names


def _named(text: str) -> set[str]:
    # `BASKETBENCH_DETECTION_*` is a family, not a setting: skip names followed by `*`.
    return {m.group(0) for m in re.finditer(r"BASKETBENCH_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_]*\*)",
                                            text)}


def _code_text() -> str:
    parts: list[str] = []
    for d in CODE_DIRS:
        root = REPO / d
        if not root.is_dir():
            continue
        for path in root.rglob("*"):
            if ("node_modules" in path.parts or "build" in path.parts or not path.is_file()
                    or path.suffix not in {".py", ".sh", ".yml", ".yaml", ".cmake", ".txt",
                                           ".mk", ".toml", ""}
                    or path.stat().st_size > 2_000_000):
                continue
            parts.append(path.read_text(errors="replace"))
    parts += [(REPO / f).read_text() for f in CODE_FILES]
    return "\n".join(parts)


def test_every_setting_named_exists() -> None:
    fields = _fields()
    others = {n for n in _named(README.read_text()) | _named(CONFIGURATION.read_text())
              if n not in fields}
    code = _code_text()
    unknown = sorted(n for n in others if not re.search(re.escape(n) + r"(?![A-Z0-9_])", code))
    assert not unknown, f"named in the docs, read nowhere: {unknown}"


def test_configuration_documents_every_setting() -> None:
    documented = _named(CONFIGURATION.read_text())
    missing = sorted(_fields() - documented)
    assert not missing, f"docs/configuration.md does not document {missing}"


# --- status codes ------------------------------------------------------------------------

def _status_rows() -> list[tuple[str, str, str, int]]:
    text = API.read_text()
    section = text.split("### Status codes checked by the tests", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"\d{3}", cells[2]):
            continue
        method, path = cells[0].split(" ", 1)
        rows.append((method, path, cells[1], int(cells[2])))
    assert len(rows) >= 10, "the status table of docs/API.md was not found"
    return rows


def _sign(body: bytes, secret: str = SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _push(shas: list[str]) -> dict[str, Any]:
    return {"ref": "refs/heads/master", "before": "0" * 40, "after": shas[-1],
            "repository": {"full_name": "root-project/root",
                           "html_url": "https://github.com/root-project/root"},
            "commits": [{"id": s, "message": f"commit {i}", "distinct": True,
                         "timestamp": f"2026-11-{10 + i:02d}T10:00:00+00:00",
                         "author": {"name": "Dev", "email": "dev@example.org"}}
                        for i, s in enumerate(shas)]}


class World:
    """Two apps on one SQLite database (with and without the webhook secret) and a token."""

    def __init__(self, client: TestClient, no_secret: TestClient, token: str) -> None:
        self.client, self.no_secret, self.token = client, no_secret, token
        self.deliveries = 0

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def webhook(self, event: str, payload: Any, *, client: TestClient | None = None,
                signature: str | None = "auto", delivery: str | None = None,
                raw: bytes | None = None) -> Any:
        body = raw if raw is not None else json.dumps(payload).encode()
        if delivery is None:
            self.deliveries += 1
            delivery = f"claims-{self.deliveries}"
        headers = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery,
                   "Content-Type": "application/json"}
        if signature == "auto":
            headers["X-Hub-Signature-256"] = _sign(body)
        elif signature is not None:
            headers["X-Hub-Signature-256"] = signature
        return (client or self.client).post("/api/v1/webhooks/github", content=body,
                                            headers=headers)

    def new_commits(self, n: int = 1) -> list[str]:
        self.deliveries += 1
        shas = [hashlib.sha1(f"claims-{self.deliveries}-{i}".encode()).hexdigest()
                for i in range(n)]
        assert self.webhook("push", _push(shas)).status_code == 202
        return shas


def _redelivery(w: World) -> Any:
    shas = [hashlib.sha1(b"claims-redelivery").hexdigest()]
    w.webhook("push", _push(shas), delivery="claims-redelivery")
    return w.webhook("push", _push(shas), delivery="claims-redelivery")


def _deep_json(w: World) -> Any:
    raw = b'{"a": ' + b"[" * 70 + b"]" * 70 + b"}"
    return w.webhook("push", None, raw=raw)


def _stale_claim(w: World) -> Any:
    sha = w.new_commits()[0]
    made = w.client.post("/api/v1/trigger", headers=w.auth,
                         json={"commits": [sha], "tags": ["claims-tag"]})
    assert made.status_code == 202, made.text
    run_id = made.json()["run_ids"][0]
    return w.client.post(f"/api/v1/runs/{run_id}/claim", headers=w.auth,
                         json={"generation": 999})


def _ab_of_one_commit(w: World) -> Any:
    sha = w.new_commits()[0]
    return w.client.post("/api/v1/ab-requests", headers=w.auth,
                         json={"base_commit": sha, "head_commit": sha, "tag": "claims-tag"})


# (method, path, condition) -> what the test sends; a row without an entry fails the test.
CASES: dict[tuple[str, str, str], Callable[[World], Any]] = {
    ("POST", "/api/v1/webhooks/github", "`BASKETBENCH_WEBHOOK_SECRET` unset"):
        lambda w: w.webhook("push", _push(["a" * 40]), client=w.no_secret),
    ("POST", "/api/v1/webhooks/github", "no `X-Hub-Signature-256`"):
        lambda w: w.webhook("push", _push(["b" * 40]), signature=None),
    ("POST", "/api/v1/webhooks/github", "wrong signature"):
        lambda w: w.webhook("push", _push(["c" * 40]), signature=_sign(b"other")),
    ("POST", "/api/v1/webhooks/github", "signed `ping`"):
        lambda w: w.webhook("ping", {"zen": "Keep it logically awesome."}),
    ("POST", "/api/v1/webhooks/github", "signed push of new commits"):
        lambda w: w.webhook("push", _push([hashlib.sha1(b"claims-new").hexdigest()])),
    ("POST", "/api/v1/webhooks/github", "the same delivery again"): _redelivery,
    ("POST", "/api/v1/webhooks/github", "JSON nested deeper than 64 levels"): _deep_json,
    ("POST", "/api/v1/trigger", "no token"):
        lambda w: w.client.post("/api/v1/trigger", json={"commits": ["d" * 40]}),
    ("POST", "/api/v1/trigger", "unknown token"):
        lambda w: w.client.post("/api/v1/trigger", json={"commits": ["d" * 40]},
                                headers={"Authorization": "Bearer not-a-token"}),
    ("POST", "/api/v1/results", "no token"):
        lambda w: w.client.post("/api/v1/results", json={}),
    ("POST", "/api/v1/ab-runs", "no token"):
        lambda w: w.client.post("/api/v1/ab-runs", json={}),
    ("POST", "/api/v1/runs/{id}/claim", "a generation the run is not at"): _stale_claim,
    ("GET", "/api/v1/health", "database up"): lambda w: w.client.get("/api/v1/health"),
    ("GET", "/api/v1/commits", "`limit=1001`"):
        lambda w: w.client.get("/api/v1/commits?limit=1001"),
    ("GET", "/api/v1/commits/{sha}", "unknown commit"):
        lambda w: w.client.get("/api/v1/commits/" + "e" * 40),
    ("GET", "/api/v1/runs/{id}", "unknown run"): lambda w: w.client.get("/api/v1/runs/987654"),
    ("GET", "/api/v1/results", "unknown `codec_set`"):
        lambda w: w.client.get("/api/v1/results?codec_set=no-such-set"),
    ("DELETE", "/api/v1/worker-tags/{tag}", "unknown tag"):
        lambda w: w.client.delete("/api/v1/worker-tags/no-such-tag", headers=w.auth),
    ("POST", "/api/v1/advise", "path with `..`"):
        lambda w: w.client.post("/api/v1/advise", headers=w.auth,
                                json={"tag": "claims-tag", "path": "../etc/passwd"}),
    ("POST", "/api/v1/ab-requests", "no token"):
        lambda w: w.client.post("/api/v1/ab-requests",
                                json={"base_commit": "a" * 40, "head_commit": "b" * 40,
                                      "tag": "claims-tag"}),
    ("POST", "/api/v1/ab-requests", "the same commit on both sides"): _ab_of_one_commit,
    ("GET", "/api/v1/ab-requests/{run_id}", "a run that is not an A/B request"):
        lambda w: w.client.get("/api/v1/ab-requests/987654"),
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    url = f"sqlite:///{tmp_path_factory.mktemp('claims') / 'bb.sqlite'}"
    common: dict[str, Any] = {"database_url": url, "dispatch": "none",
                              "frontend_dist": "/nonexistent", "gc": "default",
                              "detection": False}
    settings = Settings(webhook_secret=SECRET, **common)
    migrate.upgrade(settings)
    app = create_app(settings)
    with TestClient(app) as client, \
            TestClient(create_app(Settings(webhook_secret=None, **common))) as no_secret:
        with app.state.sessionmaker() as session:
            _, token = create_token(session, "readme-claims")
        yield World(client, no_secret, token)


def test_every_stated_status_is_what_the_code_answers(world: World) -> None:
    wrong = []
    for method, path, condition, status in _status_rows():
        case = CASES.get((method, path, condition))
        assert case is not None, (f"docs/API.md states {method} {path} | {condition} | "
                                  f"{status}, which this test cannot send: add it to CASES")
        got = case(world)
        if got.status_code != status:
            wrong.append(f"{method} {path} ({condition}): docs say {status}, "
                         f"code answers {got.status_code} {got.text[:200]}")
    assert not wrong, "\n".join(wrong)


def test_webhook_statuses_in_prose_are_in_the_table() -> None:
    table = {status for method, path, _, status in _status_rows()
             if path == "/api/v1/webhooks/github"}
    for doc in (README, CONFIGURATION, DOCS / "deployment.md"):
        for line in doc.read_text().splitlines():
            if "webhook" in line.lower() and re.search(r"\banswer", line):
                stated = {int(s) for s in re.findall(r"(?<![\w-])([1-5]\d\d)(?!\w)", line)}
                assert stated <= table, f"{doc.name}: {line.strip()!r} vs the table {table}"


# --- links -------------------------------------------------------------------------------

def test_relative_links_resolve() -> None:
    broken = []
    for doc in [README, *sorted(DOCS.rglob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            resolved = (doc.parent / path).resolve()
            if path and not resolved.exists():
                broken.append(f"{doc.relative_to(REPO)} -> {target}")
    assert not broken, "\n".join(broken)
