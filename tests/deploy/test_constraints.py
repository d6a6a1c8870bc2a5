"""constraints.txt holds every install to the same Python packages: each dependency of
pyproject.toml (and of its extras) is pinned there, inside pyproject's own range; every
install of the project (Makefile, both images) passes it; and this environment, made by
`make`, has exactly those versions of them."""

from __future__ import annotations

import re
import shlex
import tomllib
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .dockerfile import parse
from .support import REPO

CONSTRAINTS = REPO / "constraints.txt"


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for number, raw in enumerate(CONSTRAINTS.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", line)
        assert match, f"constraints.txt:{number}: not an exact pin: {raw!r}"
        name = canonicalize_name(match.group(1))
        assert name not in pins, f"constraints.txt:{number}: {name} pinned twice"
        pins[name] = match.group(2)
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    listed = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        listed.extend(extra)
    return [Requirement(r) for r in listed]


def test_every_dependency_is_pinned_inside_its_range() -> None:
    pins = _pins()
    problems = []
    for req in _requirements():
        version = pins.get(canonicalize_name(req.name))
        if version is None:
            problems.append(f"{req.name}: not in constraints.txt")
        elif not req.specifier.contains(version, prereleases=True):
            problems.append(f"{req.name}: pinned {version}, pyproject asks {req.specifier}")
    assert not problems, problems


def test_every_install_of_the_project_passes_the_constraints() -> None:
    commands = [line.strip() for line in (REPO / "Makefile").read_text().splitlines()
                if "pip install" in line and " -e " in line]
    for dockerfile in sorted((REPO / "docker").glob("*.Dockerfile")):
        image = parse(dockerfile)
        copied = " ".join(i.value for i in image.of("COPY"))
        installs = [i.value for i in image.of("RUN")
                    if "pip install" in i.value and " -e " in i.value]
        if installs:
            assert "constraints.txt" in copied.split(), \
                f"{dockerfile.name} must COPY constraints.txt"
        commands.extend(installs)
    assert len(commands) >= 4, commands  # make's two, and one per image
    for command in commands:
        words = shlex.split(command)
        at = [k for k, w in enumerate(words) if w == "-c"]
        assert any(words[k + 1] == "constraints.txt" for k in at), \
            f"installs without -c constraints.txt: {command}"


def test_this_environment_has_the_pinned_versions() -> None:
    """`make` installed this environment with the constraints: a dependency at another
    version means an install path that skips them (or a venv older than the file)."""
    pins = _pins()
    wrong = {}
    for req in _requirements():
        try:
            installed = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            continue  # an extra this environment was not asked for
        pinned = pins.get(canonicalize_name(req.name))
        if pinned is not None and installed != pinned:
            wrong[req.name] = (installed, pinned)
    assert not wrong, f"installed vs pinned: {wrong}"
