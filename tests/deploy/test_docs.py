"""The README names every setting the code reads, and every compose variable."""

from __future__ import annotations

import re

from basketbench.core.config import Settings
from basketbench_workers.config import WorkerSettings

from .support import REPO

DOC = REPO / "docs" / "configuration.md"


def _documented() -> set[str]:
    return set(re.findall(r"`(BASKETBENCH_[A-Z0-9_]+|POSTGRES_[A-Z_]+)`", DOC.read_text()))


def test_every_setting_is_documented() -> None:
    documented = _documented()
    for cls in (Settings, WorkerSettings):
        names = {"BASKETBENCH_" + name.upper() for name in cls.model_fields}
        assert names <= documented, f"{cls.__name__}: undocumented {sorted(names - documented)}"


def test_every_compose_variable_is_documented() -> None:
    documented = _documented()
    for file in (REPO / "docker-compose.yml", REPO / "docker" / "compose.worker.yml"):
        used = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", file.read_text()))
        assert used <= documented, f"{file.name}: undocumented {sorted(used - documented)}"


def test_the_webhook_instructions_match_the_api() -> None:
    text = DOC.read_text()
    api = (REPO / "docs" / "API.md").read_text()
    assert "/webhooks/github" in api and "/api/v1/webhooks/github" in text
    assert "application/json" in text and "BASKETBENCH_WEBHOOK_SECRET" in text
    assert "Pushes" in text and "Pull requests" in text
