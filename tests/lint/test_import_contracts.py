"""The import rules of `make lint` hold on this tree, and catch what they are for: a planted
import circle and a planted forbidden import each fail the check that names them
(docs/architecture.md: allowed imports)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
SOURCES = ("backend", "workers", "devtools")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter not installed")


def _run(args: list[str], root: Path) -> subprocess.CompletedProcess[str]:
    # The copied tree first on the path: grimp finds the packages where Python would.
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(str(root / s) for s in SOURCES)}
    return subprocess.run(args, cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the Python sources, the contracts and the cycle check, to plant into."""
    for source in SOURCES:
        shutil.copytree(REPO / source, tmp_path / source,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "check_import_cycles.py", tmp_path / "scripts")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_contracts_and_no_circles_on_this_tree() -> None:
    contracts = _run([str(LINT_IMPORTS), "--no-cache"], REPO)
    assert contracts.returncode == 0, contracts.stdout + contracts.stderr
    assert "0 broken" in contracts.stdout
    circles = _run([sys.executable, "scripts/check_import_cycles.py"], REPO)
    assert circles.returncode == 0, circles.stdout + circles.stderr
    assert " 0 import circles" in circles.stdout


def test_a_planted_circle_fails_and_is_named(tree: Path) -> None:
    stats = tree / "backend" / "basketbench" / "stats"
    (stats / "planted_a.py").write_text("from basketbench.stats import planted_b  # noqa\n")
    # Inside a function: a lazy import hides a circle, it does not remove it.
    (stats / "planted_b.py").write_text(
        "def f() -> None:\n    from basketbench.stats import planted_a  # noqa\n")
    result = _run([sys.executable, "scripts/check_import_cycles.py"], tree)
    assert result.returncode == 1, result.stdout
    assert ("import circle: basketbench.stats.planted_a <-> basketbench.stats.planted_b"
            in result.stdout)


@pytest.mark.parametrize(("where", "line", "contract"), [
    ("backend/basketbench/measure/rootio/planted.py", "import sqlalchemy",
     "The measurement library imports no web, database or worker code"),
    ("backend/basketbench/runs/planted.py", "import basketbench_workers.embedded",
     "The web side never imports the workers, the CLI or the developer tools"),
    ("backend/basketbench/models/planted.py", "import basketbench.analysis.routes",
     "Layers: composition roots, domains, web plumbing, core, shared libraries"),
])
def test_a_planted_forbidden_import_breaks_its_contract(tree: Path, where: str, line: str,
                                                        contract: str) -> None:
    (tree / where).write_text(line + "  # noqa: F401\n")
    result = _run([str(LINT_IMPORTS), "--no-cache", "--config", str(tree / "pyproject.toml")],
                  tree)
    assert result.returncode == 1, result.stdout
    assert f"{contract} BROKEN" in result.stdout, result.stdout
