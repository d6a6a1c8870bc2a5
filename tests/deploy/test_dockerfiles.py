"""Static checks of docker/*.Dockerfile: what the images copy exists, bases are pinned, the
commands they run exist in our CLI, and the usual hadolint rules (apt hygiene, non-root, ...)."""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from .dockerfile import Dockerfile, Instruction, parse
from .support import REPO, basketbench_exe

DOCKERFILES = sorted((REPO / "docker").glob("*.Dockerfile"))
EXPECTED_COMMAND = {
    "api.Dockerfile": ["basketbench", "serve"],
    "worker.Dockerfile": ["basketbench", "worker"],
}


def test_the_images_exist() -> None:
    assert {p.name for p in DOCKERFILES} == set(EXPECTED_COMMAND)


@pytest.fixture(params=DOCKERFILES, ids=lambda p: p.name)
def dockerfile(request: pytest.FixtureRequest) -> Dockerfile:
    return parse(request.param)


def _dockerignore() -> list[str]:
    lines = (REPO / ".dockerignore").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def _ignored(rel: str, patterns: list[str]) -> bool:
    """Docker's rule, simplified to what we use: a pattern matches the path or a parent."""
    parts = rel.strip("/").split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    excluded = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pat = pattern[1:] if negate else pattern
        pat = pat.strip("/")
        hit = any(
            fnmatch.fnmatchcase(p, pat) or fnmatch.fnmatchcase(p, pat.replace("**/", ""))
            for p in prefixes
        )
        if hit:
            excluded = not negate
    return excluded


def _copy_sources(ins: Instruction) -> list[str]:
    args = ins.args
    assert len(args) >= 2, f"line {ins.line}: COPY needs a source and a destination"
    return args[:-1]


def test_base_images_are_pinned(dockerfile: Dockerfile) -> None:
    names: set[str] = set()
    for stage in dockerfile.stages:
        if stage.image in names:
            continue  # FROM <earlier stage>
        image = stage.image
        assert "$" not in image, f"{stage.written}: a build argument without a default"
        if "@sha256:" in image:
            continue
        tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else ""
        assert tag and tag != "latest", f"{image} is not pinned to a tag"
        assert re.search(r"\d", tag), f"{image}: tag names no version"
        if stage.name:
            names.add(stage.name)


def test_base_images_are_build_arguments(dockerfile: Dockerfile) -> None:
    # So that `make compose-e2e` builds the same files on locally made base images.
    names = {s.name for s in dockerfile.stages if s.name}
    for stage in dockerfile.stages:
        if stage.written not in names:
            assert re.fullmatch(r"\$\{[A-Z_]+_IMAGE\}", stage.written), stage.written


def test_every_copy_source_exists_and_is_in_the_context(dockerfile: Dockerfile) -> None:
    patterns = _dockerignore()
    stage_names = {s.name for s in dockerfile.stages if s.name}
    copies = dockerfile.of("COPY")
    assert copies
    for ins in copies:
        origin = ins.flags.get("from")
        if origin is not None:
            earlier = {s.name for s in dockerfile.stages[: ins.stage] if s.name}
            assert origin in earlier, f"line {ins.line}: --from={origin} is not an earlier stage"
            assert origin in stage_names
            continue
        for source in _copy_sources(ins):
            matches = list(REPO.glob(source.rstrip("/"))) if any(c in source for c in "*?[") else [
                REPO / source
            ]
            assert matches and all(m.exists() for m in matches), (
                f"{dockerfile.path.name}:{ins.line}: COPY source {source} does not exist"
            )
            assert not _ignored(source, patterns), (
                f"{dockerfile.path.name}:{ins.line}: {source} is excluded by .dockerignore"
            )


def test_no_add_for_local_files(dockerfile: Dockerfile) -> None:
    assert dockerfile.of("ADD") == [], "use COPY (ADD fetches URLs and unpacks archives)"


def test_workdirs_are_absolute(dockerfile: Dockerfile) -> None:
    for ins in dockerfile.of("WORKDIR"):
        assert ins.value.startswith("/"), f"line {ins.line}: WORKDIR {ins.value} is relative"


def _run_commands(dockerfile: Dockerfile) -> list[tuple[Instruction, list[str]]]:
    """Each RUN split into its &&-chained commands (shell form)."""
    out = []
    for ins in dockerfile.of("RUN"):
        for part in re.split(r"&&|;", ins.value):
            words = shlex.split(part)
            if words:
                out.append((ins, words))
    return out


def test_apt_get_hygiene(dockerfile: Dockerfile) -> None:
    for ins in dockerfile.of("RUN"):
        if "apt-get install" not in ins.value:
            continue
        assert "apt-get update" in ins.value, f"line {ins.line}: update and install in one RUN"
        assert "--no-install-recommends" in ins.value, f"line {ins.line}"
        assert re.search(r"apt-get install[^&]*\s-y\b", ins.value), f"line {ins.line}: -y"
        assert "rm -rf /var/lib/apt/lists/*" in ins.value, f"line {ins.line}: clean the lists"
        assert ins.value.index("apt-get update") < ins.value.index("apt-get install")


def test_pip_keeps_no_cache(dockerfile: Dockerfile) -> None:
    env_no_cache = any("PIP_NO_CACHE_DIR=1" in i.value for i in dockerfile.of("ENV"))
    for ins, words in _run_commands(dockerfile):
        if words[:2] == ["pip", "install"] or words[:4] == ["python", "-m", "pip", "install"]:
            assert env_no_cache or "--no-cache-dir" in words, f"line {ins.line}"


def test_runs_as_a_non_root_user(dockerfile: Dockerfile) -> None:
    """The API runs as a user of its own. The worker runs as root to make the sandbox's
    namespaces (docs/security.md), and every commit's code runs as a non-root user of its
    own, named by BASKETBENCH_SANDBOX_UID."""
    user = dockerfile.final("USER")
    assert user is not None, "the final stage must name its USER"
    created = " ".join(i.value for i in dockerfile.of("RUN"))
    if dockerfile.path.name == "worker.Dockerfile":
        assert user.value == "root"
        env = " ".join(i.value for i in dockerfile.of("ENV"))
        uid = re.search(r"BASKETBENCH_SANDBOX_UID=(\d+)", env)
        assert uid and int(uid.group(1)) != 0, "commit code must run as a non-root user"
        assert re.search(rf"useradd\b[^&]*--uid {uid.group(1)}\b", created), (
            f"the sandbox user {uid.group(1)} is never created")
        assert re.search(r"apt-get install[^&]*\bbubblewrap\b", created)
        return
    assert user.value.split(":")[0] not in ("root", "0")
    assert re.search(rf"useradd\b[^&]*\b{re.escape(user.value)}\b", created), (
        f"user {user.value} is never created"
    )


def _image_command(dockerfile: Dockerfile) -> tuple[list[str], list[str]]:
    entry = dockerfile.final("ENTRYPOINT")
    cmd = dockerfile.final("CMD")
    assert cmd is not None, "no CMD"
    for ins in (entry, cmd):
        if ins is not None:
            assert ins.is_exec_form, f"line {ins.line}: use the exec (JSON) form"
    return (entry.args if entry else []), cmd.args


def test_the_command_exists(dockerfile: Dockerfile) -> None:
    entry, cmd = _image_command(dockerfile)
    expected = EXPECTED_COMMAND[dockerfile.path.name]
    assert cmd[:2] == expected
    # The subcommand is real: our CLI answers --help for it.
    helped = subprocess.run(
        [basketbench_exe(), expected[1], "--help"], capture_output=True, text=True, check=False
    )
    assert helped.returncode == 0, helped.stderr
    for option in cmd[2:]:
        if option.startswith("--"):
            assert option in helped.stdout, f"`basketbench {expected[1]}` has no option {option}"
    # An entrypoint is one of our scripts, copied to the path it is called by, executable.
    if entry:
        copied = {
            ins.args[-1]: ins.args[0] for ins in dockerfile.of("COPY") if "from" not in ins.flags
        }
        assert entry[0] in {Path(dest).name for dest in copied} or entry[0] in copied, entry
        source = next(src for dest, src in copied.items() if Path(dest).name == entry[0])
        chmods = " ".join(i.value for i in dockerfile.of("RUN") if "chmod" in i.value)
        assert Path(next(d for d in copied if Path(d).name == entry[0])).as_posix() in chmods
        script = REPO / source
        assert script.read_text().startswith("#!/bin/sh")
        syntax = subprocess.run(["sh", "-n", str(script)], capture_output=True, text=True)
        assert syntax.returncode == 0, syntax.stderr
        assert 'exec "$@"' in script.read_text(), "the entrypoint must exec the command (PID 1)"


def test_api_image(tmp_path: Path) -> None:
    api = parse(REPO / "docker" / "api.Dockerfile")
    assert len(api.stages) == 2 and api.stages[0].image.startswith("node:")
    assert api.stages[1].image.startswith("python:3.11")
    # The dashboard is built in the node stage and only its dist/ reaches the runtime.
    runs = [i.value for i in api.of("RUN") if i.stage == 0]
    assert any("npm ci" in r for r in runs) and any("npm run build" in r for r in runs)
    from_frontend = [i for i in api.of("COPY") if i.flags.get("from") == api.stages[0].name]
    assert [i.args[0] for i in from_frontend] == ["/src/frontend/dist/"]
    healthcheck, expose = api.final("HEALTHCHECK"), api.final("EXPOSE")
    assert healthcheck is not None and "/api/v1/health" in healthcheck.value
    assert expose is not None and expose.value == "8000"
    # Migrations run on start: the entrypoint upgrades the database before exec'ing serve.
    entry = (REPO / "docker" / "api-entrypoint.sh").read_text()
    assert entry.index("basketbench db upgrade") < entry.index('exec "$@"')
    helped = subprocess.run(
        [basketbench_exe(), "db", "upgrade", "--help"], capture_output=True, text=True, check=False
    )
    assert helped.returncode == 0, helped.stderr or helped.stdout


def _deb_packages_of_system_deps() -> set[str]:
    text = (REPO / "scripts" / "system-deps.sh").read_text()
    block = re.search(r"DEB_PKGS=\(([^)]*)\)", text, flags=re.S)
    assert block
    return set(block.group(1).split())


def test_worker_image_has_the_toolchain_and_codec_libraries() -> None:
    worker = parse(REPO / "docker" / "worker.Dockerfile")
    installed: set[str] = set()
    for ins in worker.of("RUN"):
        if "apt-get install" in ins.value:
            tail = ins.value.split("apt-get install", 1)[1].split("&&")[0]
            installed |= {w for w in tail.split() if not w.startswith("-")}
    needed = {p for p in _deb_packages_of_system_deps() if p.endswith("-dev")} - {"libgtest-dev"}
    needed |= {"cmake", "git", "pkg-config", "build-essential"}
    assert needed <= installed, f"missing in the worker image: {sorted(needed - installed)}"
    # The image proves at build time that it can build and run the harness (release, no
    # GoogleTest: libgtest-dev is not in the image).
    builds = " ".join(i.value for i in worker.of("RUN"))
    assert "-DCMAKE_BUILD_TYPE=Release" in builds and "-DRZBENCH_TESTS=OFF" in builds
    assert "--target rzbench" in builds and "rzbench version" in builds
    assert "libgtest-dev" not in installed
    # The ROOT mirror and build cache live in a volume owned by the worker user.
    volume = worker.final("VOLUME")
    assert volume is not None and volume.args == ["/var/lib/basketbench"]
    assert any("BASKETBENCH_WORKER_DIR=/var/lib/basketbench" in i.value for i in worker.of("ENV"))


def _fake_executable(directory: Path, name: str) -> None:
    """A stand-in for the real program that prints the arguments it was given."""
    path = directory / name
    path.write_text('#!/bin/sh\nfor a in "$@"; do echo "$a"; done\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.mark.parametrize(
    ("argv", "tag", "expected"),
    [
        (["basketbench", "worker"], "epyc", ["worker", "--tag", "epyc"]),
        (["basketbench", "worker", "--tag", "haswell"], "epyc", ["worker", "--tag", "haswell"]),
        (["basketbench", "worker"], "", ["worker"]),
        (["basketbench", "serve"], "epyc", ["serve"]),
    ],
)
def test_worker_entrypoint_takes_the_tag_from_the_environment(
    tmp_path: Path, argv: list[str], tag: str, expected: list[str]
) -> None:
    _fake_executable(tmp_path, "basketbench")
    env = {"PATH": f"{tmp_path}:{os.environ['PATH']}", "BASKETBENCH_TAG": tag}
    done = subprocess.run(
        ["sh", str(REPO / "docker" / "worker-entrypoint.sh"), *argv],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == expected


def _worker_apt_installs() -> list[list[str]]:
    """The package names of each `apt-get install` in the worker image."""
    worker = parse(REPO / "docker" / "worker.Dockerfile")
    installs = []
    for ins in worker.of("RUN"):
        if "apt-get install" in ins.value:
            tail = ins.value.split("apt-get install", 1)[1].split("&&")[0]
            installs.append([w for w in tail.split() if not w.startswith("-")])
    return installs


@pytest.mark.skipif(shutil.which("apt-cache") is None, reason="needs Debian's apt-cache")
def test_worker_packages_exist_in_debian() -> None:
    """Every package the worker image installs is a real Debian package name (the image is
    Debian bookworm, like this machine)."""
    for packages in _worker_apt_installs():
        shown = subprocess.run(
            ["apt-cache", "show", "--no-all-versions", *packages],
            capture_output=True, text=True, check=False,
        )
        known = set(re.findall(r"^Package: (\S+)$", shown.stdout, flags=re.M))
        assert set(packages) <= known, f"not Debian packages: {sorted(set(packages) - known)}"


def _arm64_known() -> bool:
    if shutil.which("dpkg") is None:
        return False
    foreign = subprocess.run(["dpkg", "--print-foreign-architectures"], capture_output=True,
                             text=True, check=False).stdout.split()
    return "arm64" in foreign


@pytest.mark.skipif(not _arm64_known(), reason="needs Debian's arm64 package lists "
                    "(make system-deps adds the architecture for make test-aarch64)")
def test_worker_image_builds_for_arm64() -> None:
    """The worker image is multi-platform: its base (the official python slim image) is
    published for linux/arm64, and every Debian package it installs exists for arm64 too, so
    `docker buildx build --platform linux/arm64 -f docker/worker.Dockerfile .` has what it
    needs (the harness itself is cross-built and run for aarch64 by make test-aarch64)."""
    for packages in _worker_apt_installs():
        # arm64 builds, plus the architecture-independent packages (ca-certificates, headers).
        shown = subprocess.run(
            ["apt-cache", "show", "--no-all-versions", *(f"{p}:arm64" for p in packages),
             *packages],
            capture_output=True, text=True, check=False,
        )
        stanzas = shown.stdout.split("\n\n")
        arm = {m.group(1) for st in stanzas
               if (m := re.search(r"^Package: (\S+)$", st, flags=re.M))
               and re.search(r"^Architecture: (arm64|all)$", st, flags=re.M)}
        assert set(packages) <= arm, f"not available for arm64: {sorted(set(packages) - arm)}"
    # No instruction pins the image to one architecture.
    text = (REPO / "docker" / "worker.Dockerfile").read_text()
    assert "--platform" not in text and "amd64" not in text and "x86_64" not in text


def test_more_hadolint_rules(dockerfile: Dockerfile) -> None:
    """DL3004 no sudo, DL3005 no apt-get upgrade, DL3003 WORKDIR instead of cd,
    DL4000 no MAINTAINER, DL3020 COPY not ADD (above), one CMD / ENTRYPOINT per stage."""
    assert dockerfile.of("MAINTAINER") == []
    for ins, words in _run_commands(dockerfile):
        assert words[0] != "sudo", f"line {ins.line}: sudo in RUN"
        assert words[0] != "cd", f"line {ins.line}: use WORKDIR instead of cd"
        if words[0] == "apt-get":
            assert not {"upgrade", "dist-upgrade"} & set(words), f"line {ins.line}"
    for keyword in ("CMD", "ENTRYPOINT", "HEALTHCHECK"):
        per_stage = [i.stage for i in dockerfile.of(keyword)]
        assert len(per_stage) == len(set(per_stage)), f"several {keyword} in one stage"


def test_worker_image_has_the_real_root_files_of_the_default_suite() -> None:
    """The image has no ../shared folder: its ROOT files come from the testdata wheel (the
    `demo` extra), which must hold every file of the suite webhook runs use."""
    import tomllib

    from basketbench.measure.rootio.root_files import TESTDATA_FILES
    from basketbench_workers.pipeline.suites import load_suites

    worker = parse(REPO / "docker" / "worker.Dockerfile")
    installs = [words for _, words in _run_commands(worker) if words[:2] == ["pip", "install"]]
    assert any(".[demo]" in words for words in installs), installs
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert any(d.startswith("scikit-hep-testdata") for d in extras["optional-dependencies"]["demo"])
    compose = (REPO / "docker-compose.yml").read_text()
    default_suite = re.search(r"BASKETBENCH_DEFAULT_SUITE:-([\w-]+)", compose)
    assert default_suite
    suite = load_suites()[default_suite.group(1)]
    needed = {name for corpus in suite.corpora for name in corpus.files}
    assert needed and needed <= set(TESTDATA_FILES), sorted(needed - set(TESTDATA_FILES))


def test_worker_entrypoint_trusts_a_mounted_root_repository(tmp_path: Path) -> None:
    # A repository mounted from the host belongs to another user: git must be told to trust
    # exactly that path, in a config the worker can write (found by `make compose-e2e`).
    repo, worker_dir = tmp_path / "root", tmp_path / "worker"
    repo.mkdir()
    worker_dir.mkdir()
    env = {"PATH": os.environ["PATH"], "BASKETBENCH_ROOT_REPO": str(repo),
           "BASKETBENCH_WORKER_DIR": str(worker_dir), "HOME": str(tmp_path / "nohome")}
    for _ in range(2):  # a restart adds nothing twice
        done = subprocess.run(
            ["sh", str(REPO / "docker" / "worker-entrypoint.sh"),
             "git", "config", "--global", "--get-all", "safe.directory"],
            capture_output=True, text=True, env=env, check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == [str(repo), f"{repo}/.git"]
    assert (worker_dir / "gitconfig").is_file()
