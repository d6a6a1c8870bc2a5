"""`basketbench demo`: benchmark this machine end to end and serve the dashboard.

Embedded defaults (no database or broker configured): a SQLite file under the demo's
home (.basketbench/), and in-process execution of the same Celery task code (the API's
enqueue path calls basketbench_workers.embedded.run_inline). The run goes through the
full path: POST /api/v1/trigger -> task -> harness -> POST /api/v1/results.

What is built or measured once is reused: the corpora (cached by content), the token,
and the run for the current commit (unless --rerun).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import typer
from basketbench.measure.paths import repo_root
from basketbench.measure.realroot.releases import release_for_sha

if TYPE_CHECKING:
    from basketbench.catalog.commits import CommitInfo
    from basketbench.core.config import Settings

DEMO_REPOSITORY = "basketbench"
DEMO_SUITE = "demo"
QUICK_SUITE = "demo-quick"
# Real files for the demo's corpora, in order of preference; those present are used.
DEMO_CORPORA = (
    ("hzz", "uproot-HZZ-zlib.root"),
    ("zmumu", "uproot-Zmumu-zlib.root"),
    ("nanoaod", "nanoAOD_2015_CMS_Open_Data_ttbar.root"),
    ("physlite", "atlas-DAOD_PHYSLITE-sample.root"),
    # ROOT's own RNTuple pages (its metadata TTrees left out): beside "physlite" on the
    # trade-off page, the TTree and RNTuple forms of ATLAS PHYSLITE
    ("physlite-rntuple", "uproot-physlite-rntuple_v1-0-0-0.root"),
)
# Corpora that hold only one kind of buffer (suite `kind`): "ttree" or "rntuple".
DEMO_KINDS = {"physlite-rntuple": "rntuple"}
# The synthetic generators except tlarge (8 MB of what tfloat already shows): with the real
# corpora about 30 MB per pass, a few minutes on an idle laptop.
DEMO_SYNTHETIC = ("event", "nanoaod-offsets", "tfloat", "tsmall", "random", "zeros")
# Every algorithm at a fast and a strong level (LZMA only fast: it is 10x slower than the
# rest): enough for a trade-off plot. The workers' `full` suite has the papers' grid.
DEMO_SETTINGS = (101, 104, 109, 201, 401, 404, 409, 501, 505, 507)
CODEC_PKG_CONFIG = ("zlib", "liblzma", "liblz4", "libzstd", "libxxhash", "nlohmann_json")
FINAL_STATUSES = {"succeeded", "failed", "cancelled"}


class DemoError(Exception):
    """A reason to stop, with what to do about it."""


@dataclass(frozen=True)
class DemoPaths:
    home: Path

    @property
    def token(self) -> Path:
        return self.home / "demo-token"

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


def say(message: str) -> None:
    typer.echo(f"[demo] {message}")


# --- prerequisites -----------------------------------------------------------------------


def _missing_build_tools() -> list[str]:
    missing = [tool for tool in ("cmake", "git") if shutil.which(tool) is None]
    if not any(shutil.which(cxx) for cxx in ("c++", "g++", "clang++")):
        missing.append("a C++17 compiler")
    if shutil.which("pkg-config") is None:
        missing.append("pkg-config")
    elif sys.platform.startswith("linux"):
        # (on macOS brew's keg-only zlib has no .pc on the default path: system-deps.sh's
        # `brew list` is the check there)
        for lib in CODEC_PKG_CONFIG:
            found = subprocess.run(["pkg-config", "--exists", lib], check=False)
            if found.returncode != 0:
                missing.append(lib)
    return missing


def ensure_system_packages(root: Path) -> None:
    """Install the build tools and codec libraries if missing (apt as root / sudo -n, brew),
    else stop with the exact command (scripts/system-deps.sh prints it)."""
    missing = _missing_build_tools()
    if not missing and sys.platform != "darwin":
        return
    if missing:
        say(f"missing: {', '.join(missing)}; installing system packages")
    script = root / "scripts" / "system-deps.sh"
    done = subprocess.run(
        ["bash", str(script)], env={**os.environ, "BASKETBENCH_TEST_DEPS": "0"}, check=False
    )
    still = _missing_build_tools()
    if done.returncode != 0 or still:
        raise DemoError(
            f"system packages still missing ({', '.join(still) or 'see above'}); "
            "run the command printed above, or: sudo apt-get install -y build-essential cmake "
            "pkg-config git zlib1g-dev liblzma-dev liblz4-dev libzstd-dev libxxhash-dev "
            "nlohmann-json3-dev  (macOS: brew install cmake pkg-config zlib xz lz4 zstd xxhash "
            "nlohmann-json)"
        )


def frontend_dist(root: Path) -> Path | None:
    """The built dashboard (`make demo` builds it first; `make frontend-build` alone)."""
    dist = root / "frontend" / "dist"
    if (dist / "index.html").is_file():
        return dist
    say("the dashboard is not built (make frontend-build, needs Node 20+); serving the API only")
    return None


def resolve_commit(root: Path, rev: str) -> str:
    """Full sha of `rev` (default HEAD) in the checkout; the demo measures that commit."""
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
        capture_output=True, text=True, check=False,
    )
    sha = done.stdout.strip()
    if done.returncode != 0 or len(sha) != 40:
        raise DemoError(
            f"{rev!r} is not a commit of the git checkout {root} "
            f"({done.stderr.strip() or 'git rev-parse found nothing'}); the demo measures a "
            "commit of this checkout (default HEAD)"
        )
    return sha


def git_commit_info(root: Path, sha: str) -> CommitInfo:
    """Author, date, message and parents of `sha`, from git (the dashboard shows them)."""
    from basketbench.catalog.commits import CommitInfo

    done = subprocess.run(
        ["git", "-C", str(root), "log", "-1", "--format=%an%x00%ae%x00%aI%x00%P%x00%B", sha],
        capture_output=True, text=True, check=False,
    )
    fields = done.stdout.split("\x00")
    if done.returncode != 0 or len(fields) != 5:
        raise DemoError(f"git log could not describe {sha}: {done.stderr.strip()}")
    author, email, date, parents, message = fields
    return CommitInfo(
        sha=sha, parents=parents.split(), author=author or None, author_email=email or None,
        date=datetime.fromisoformat(date) if date else None, message=message.strip() or None,
    )


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


def stop_on_sigterm() -> None:
    """SIGTERM (e.g. to `make demo`, which passes it on) ends the demo like Ctrl-C: the run
    is marked failed and the API stopped, never left serving."""

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def _die_with_parent() -> None:
    """In the API child (Linux): SIGTERM when the demo process dies, even by SIGKILL."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


# --- the demo's suite and corpora ----------------------------------------------------------


def available_corpora() -> list[tuple[str, Path]]:
    from basketbench.measure.rootio.root_files import default_root_files

    try:
        files = {p.name: p for p in default_root_files()}
    except FileNotFoundError as exc:
        raise DemoError(str(exc)) from exc
    chosen = [(name, files[f]) for name, f in DEMO_CORPORA if f in files]
    if not chosen:
        raise DemoError(
            "none of the demo's real ROOT files is available "
            f"({', '.join(f for _, f in DEMO_CORPORA)}); install them with: "
            f"{sys.executable} -m pip install 'scikit-hep-testdata==0.3.12'"
        )
    return chosen


def write_suite(paths: DemoPaths, corpora: list[tuple[str, Path]], quick: bool) -> Path:
    """The demo suite as a worker suite file (BASKETBENCH_SUITES_DIR), rewritten each time so
    it always names the files that exist here."""
    settings = (101, 404, 505) if quick else DEMO_SETTINGS
    synthetic = ("event", "nanoaod-offsets") if quick else DEMO_SYNTHETIC
    name = QUICK_SUITE if quick else DEMO_SUITE
    lines = [
        "# Written by `basketbench demo`: every algorithm on real and synthetic baskets.",
        f'name = "{name}"',
        'description = "basketbench demo: real ROOT files and the synthetic datasets"',
        "synthetic = [" + ", ".join(f'"{s}"' for s in synthetic) + "]",
        "settings = [" + ", ".join(str(s) for s in settings) + "]",
        "min_samples = 5",
        f"target_ms = {20 if quick else 50}",
    ]
    for corpus, path in corpora[: 1 if quick else None]:
        lines += ["", "[[corpora]]", f'name = "{corpus}"', f'files = ["{path.name}"]']
        if corpus in DEMO_KINDS:
            lines.append(f'kind = "{DEMO_KINDS[corpus]}"')
    paths.suites.mkdir(parents=True, exist_ok=True)
    target = paths.suites / f"{name}.toml"
    text = "\n".join(lines) + "\n"
    if not target.is_file() or target.read_text() != text:
        target.write_text(text)
    return target


def prepare_corpora(paths: DemoPaths, suite_file: Path) -> None:
    """Extract the suite's corpora into the worker's corpus cache now, with progress, so the
    run itself only measures. Same cache and naming as the worker (content hash)."""
    import tomllib

    from basketbench_workers.pipeline.corpora import corpus_file
    from basketbench_workers.pipeline.suites import parse_suite

    suite = parse_suite(tomllib.loads(suite_file.read_text()), str(suite_file))
    for spec in suite.corpora:
        before = set(paths.corpora.glob("*.bbc"))
        started = time.monotonic()
        target = corpus_file(spec, paths.corpora)
        took = time.monotonic() - started
        state = "cached" if target in before else f"extracted in {took:.1f} s"
        say(f"corpus {spec.name}: {target.name} ({target.stat().st_size / 1e6:.1f} MB, {state})")


# --- the API server --------------------------------------------------------------------------


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # As uvicorn binds: a port whose old connections linger in TIME_WAIT is free.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "basketbench.cli", *args],
        env=env, capture_output=True, text=True, check=False,
    )


def migrate(env: dict[str, str]) -> None:
    done = run_cli(["db", "upgrade"], env)
    if done.returncode != 0:
        raise DemoError(f"database migration failed:\n{done.stderr or done.stdout}")


def create_token(env: dict[str, str], paths: DemoPaths) -> str:
    done = run_cli(["token", "create", "--name", "demo"], env)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise DemoError(f"basketbench token create failed:\n{done.stderr or done.stdout}")
    token = lines[-1].strip()
    paths.token.write_text(token + "\n")
    paths.token.chmod(0o600)
    return token


def token_is_valid(token: str) -> bool:
    if not token:
        return False
    from basketbench.core.config import Settings
    from basketbench.core.db import make_engine, make_sessionmaker
    from basketbench.core.tokens import authenticate

    engine = make_engine(Settings())
    try:
        with make_sessionmaker(engine)() as session:
            return authenticate(session, token) is not None
    finally:
        engine.dispose()


class Server:
    """`basketbench serve` as a child process, its output in a log file."""

    def __init__(self, env: dict[str, str], host: str, port: int, log: Path) -> None:
        self.url = f"http://{host}:{port}"
        self.log = log
        self._log_fh = log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "basketbench.cli", "serve", "--host", host, "--port", str(port)],
            env=env, stdout=self._log_fh, stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches it through us, in order
            preexec_fn=_die_with_parent,
        )

    def wait_healthy(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise DemoError(f"the API exited ({self.proc.returncode}):\n{self.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/api/v1/health", timeout=2).status_code == 200:
                    return
            time.sleep(0.3)
        raise DemoError(f"the API did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        self._log_fh.flush()
        text = self.log.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log_fh.close()


def serves_dashboard(url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        response = httpx.get(f"{url}/", timeout=5)
        return response.status_code == 200 and "text/html" in response.headers.get(
            "content-type", ""
        )
    return False


# --- the run -----------------------------------------------------------------------------------


def _check(response: httpx.Response, what: str) -> Any:
    if response.status_code >= 400:
        raise DemoError(f"{what}: HTTP {response.status_code}: {response.text[:2000]}")
    return response.json()


def find_finished_run(
    client: httpx.Client, sha: str, tag: str, suite: str
) -> dict[str, Any] | None:
    response = client.get(
        "/api/v1/runs",
        params={"commit": sha, "tag": tag, "status": "succeeded", "limit": 1000},
    )
    if response.status_code == 404:  # the commit is not known yet: never measured
        return None
    page = _check(response, "listing runs")
    runs = [r for r in page["items"] if r.get("suite") == suite and r.get("result_count")]
    return max(runs, key=lambda r: r["id"]) if runs else None


def trigger(client: httpx.Client, token: str, sha: str, tag: str, suite: str) -> int:
    body = {"repository": DEMO_REPOSITORY, "commits": [sha], "tags": [tag], "suite": suite}
    response = client.post(
        "/api/v1/trigger", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    data = _check(response, "POST /api/v1/trigger")
    if not data.get("run_ids"):
        raise DemoError(f"the trigger created no run: {data}")
    return int(data["run_ids"][0])


def follow(client: httpx.Client, run_id: int, timeout: float, worker_log: Path) -> dict[str, Any]:
    """Poll the run, printing each change of stage or progress (and a line every 30 s
    while nothing changes), until it ends."""
    started = time.monotonic()
    last: tuple[str, str, int] | None = None
    last_print = started
    while True:
        run = _check(client.get(f"/api/v1/runs/{run_id}"), f"GET /api/v1/runs/{run_id}")
        progress = int(round(100 * float(run.get("progress") or 0.0)))
        now = (run["status"], run.get("stage") or "", progress)
        elapsed = time.monotonic() - started
        moved = last is None or now[:2] != last[:2] or abs(now[2] - last[2]) >= 5
        if moved or time.monotonic() - last_print > 30:
            line = f"run {run_id}: {now[0]:<9} stage={now[1] or '-':<10} {progress:3d} %"
            line += f"  ({elapsed:4.0f} s)"
            if now[0] == "queued" and elapsed > 5:
                line += f"  the worker builds rzbench (once per harness version): {worker_log}"
            say(line)
            last, last_print = now, time.monotonic()
        if run["status"] in FINAL_STATUSES:
            return dict(run)
        if elapsed > timeout:
            raise DemoError(f"run {run_id} did not finish within {timeout:.0f} s (last: {now})")
        time.sleep(1.0)


def abandon(client: httpx.Client, token: str, run_id: int) -> None:
    """Ctrl-C mid-run: the in-process run dies with the API, so say so in the database
    instead of leaving it 'running' forever."""
    with contextlib.suppress(httpx.HTTPError):
        client.patch(
            f"/api/v1/runs/{run_id}",
            json={"status": "failed", "log_tail": "interrupted: basketbench demo was stopped"},
            headers={"Authorization": f"Bearer {token}"},
            timeout=5,
        )
    say(f"interrupted; run {run_id} marked failed (run the demo again to measure)")


def print_summary(client: httpx.Client, run: dict[str, Any], title: str = "") -> int:
    """A table of every setting the run measured (ratio and median speeds per dataset),
    with its timings in words."""
    page = _check(
        client.get("/api/v1/results", params={"run": run["id"], "limit": 1000}), "GET /results"
    )
    items = page["items"]
    say(f"{title or 'run ' + str(run['id'])}: {page['total']} results "
        f"(run {run['id']}; build cache {'hit' if run.get('build_cache_hit') else 'miss'}; "
        f"{_timings(run.get('timings'))})")
    rows = sorted(
        (r for r in items if r.get("ratio")),
        key=lambda r: (str(r.get("dataset")), int(r["setting"])),
    )
    if rows:
        header = ("dataset", "setting", "codec", "ratio", "comp MB/s", "dec MB/s")
        typer.echo("  {:<22} {:>7} {:<8} {:>7} {:>10} {:>10}".format(*header))
        for r in rows:
            typer.echo(
                f"  {str(r.get('dataset')):<22} {r['setting']:>7} {str(r.get('codec')):<8} "
                f"{r['ratio']:>7.3f} {_median(r.get('compress_mbps')):>10.1f} "
                f"{_median(r.get('decompress_mbps')):>10.1f}"
            )
    return int(page["total"])


def _timings(timings: Any) -> str:
    """{"build": 12.3, "measure": 40.1} as "build 12.3 s, measure 40.1 s"."""
    if not isinstance(timings, dict) or not timings:
        return "no timings"
    return ", ".join(f"{k} {v:.1f} s" if isinstance(v, int | float) else f"{k} {v}"
                     for k, v in timings.items())


def _median(stats: Any) -> float:
    if isinstance(stats, dict) and stats.get("median") is not None:
        return float(stats["median"])
    return float("nan")


# --- the command ---------------------------------------------------------------------------


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


def demo(
    host: str = typer.Option("127.0.0.1", help="Address the dashboard listens on."),
    port: int = typer.Option(8000, help="Port of the dashboard and API."),
    home: Path = typer.Option(
        Path(".basketbench"), envvar="BASKETBENCH_DEMO_HOME",
        help="Folder for the SQLite database, corpora, build cache and logs.",
    ),
    serve: bool = typer.Option(True, "--serve/--no-serve",
                               help="Keep serving after the run (--no-serve: print and exit)."),
    rerun: bool = typer.Option(False, "--rerun", help="Measure again even if this commit was."),
    quick: bool = typer.Option(False, "--quick",
                               help="A smaller suite (3 settings, 3 datasets): under a minute."),
    timeout: float = typer.Option(3600.0, help="Seconds to wait for the run."),
    commit: str = typer.Option("HEAD", help="Commit of this checkout to measure."),
) -> None:
    try:
        _demo(host, port, home, serve, rerun, quick, timeout, commit)
    except DemoError as exc:
        typer.echo(f"[demo] error: {exc}", err=True)
        raise typer.Exit(1) from None


def _demo(host: str, port: int, home: Path, serve: bool, rerun: bool, quick: bool,
          timeout: float, commit: str) -> None:
    stop_on_sigterm()
    root = repo_root()
    paths = DemoPaths(home.resolve())
    paths.home.mkdir(parents=True, exist_ok=True)
    url = f"http://{host}:{port}"
    if not port_is_free(host, port):
        raise DemoError(f"port {port} on {host} is in use (another `basketbench demo` or serve?); "
                        "stop it or choose another with --port")

    ensure_system_packages(root)
    sha = resolve_commit(root, commit)
    from basketbench_workers.agent.hwtag import detect_tag

    tag = os.environ.get("BASKETBENCH_TAG") or detect_tag()
    dist = frontend_dist(root)
    env = demo_environment(paths, root, url, dist)
    os.environ.update({k: v for k, v in env.items() if k.startswith("BASKETBENCH_")})
    from basketbench.core.config import Settings

    settings = Settings()
    database = settings.sqlalchemy_url.split("@")[-1]  # never print a password
    say(f"commit {sha[:12]} of {root}, hardware tag {tag}")
    if settings.broker_url:
        say(f"database: {database}; broker: {settings.broker_url.split('@')[-1]}: the run waits "
            f"for a worker on queue {tag} (basketbench worker --tag {tag}); unset "
            "BASKETBENCH_BROKER_URL to run it inside the demo")
    else:
        say(f"database: {database}; no broker: the run executes inside the API process")

    migrate(env)
    corpora = available_corpora()
    suite_file = write_suite(paths, corpora, quick)
    suite = QUICK_SUITE if quick else DEMO_SUITE
    say(f"suite {suite}: {suite_file} ({len(corpora)} real corpora available)")
    prepare_corpora(paths, suite_file)

    token = paths.token.read_text().strip() if paths.token.is_file() else ""
    if not token_is_valid(token):  # first time, or a database made anew since
        token = create_token(env, paths)
    env["BASKETBENCH_API_TOKEN"] = token  # the embedded worker's token too

    say(f"starting the API on {url} (log: {paths.server_log})")
    server = Server(env, host, port, paths.server_log)
    try:
        server.wait_healthy()
        with httpx.Client(base_url=url, timeout=30) as client:
            # ROOT releases first, so the history reads 6.38.00 -> 6.40.00 -> this checkout
            from basketbench_devtools.demo.releases import measure_releases

            release_runs = measure_releases(
                client, token, tag, suite, quick=quick, rerun=rerun,
                find_finished=find_finished_run,
                trigger=trigger, say=say,
                follow=lambda rid: follow(client, rid, timeout, paths.worker / "embedded.log"),
            )
            # Stored after the releases: commit order follows arrival for unrelated commits.
            record_commit(settings, git_commit_info(root, sha))
            run = None if rerun else find_finished_run(client, sha, tag, suite)
            if run is not None:
                say(f"commit {sha[:12]} was measured already (run {run['id']}); --rerun to repeat")
            else:
                run_id = trigger(client, token, sha, tag, suite)
                say(f"triggered run {run_id} (suite {suite}) through POST /api/v1/trigger")
                try:
                    run = follow(client, run_id, timeout, paths.worker / "embedded.log")
                except KeyboardInterrupt:
                    abandon(client, token, run_id)
                    raise
                if run["status"] != "succeeded":
                    raise DemoError(f"run {run_id} {run['status']}:\n{run.get('log_tail') or ''}"
                                    f"\n--- server log ---\n{server.log_tail()}")
            for release_run in release_runs:
                release = release_for_sha(release_run["commit"])
                print_summary(client, release_run,
                              f"ROOT {release.version if release else release_run['commit'][:12]}")
            count = print_summary(client, run, f"this checkout ({sha[:12]})")
            if count == 0:
                raise DemoError(f"run {run['id']} finished but stored no results")
        page = "/" if serves_dashboard(url) else "/docs"
        say(f"dashboard: {url}{page}   (API: {url}/api/v1, docs: {url}/docs)")
        if not serve:
            return
        say("serving; Ctrl-C to stop")
        with contextlib.suppress(KeyboardInterrupt):
            server.proc.wait()
        if server.proc.returncode not in (None, 0, -signal.SIGINT):
            raise DemoError(f"the API stopped ({server.proc.returncode}):\n{server.log_tail()}")
    finally:
        server.stop()
