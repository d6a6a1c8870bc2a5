"""Fixtures of the deployment tests."""

from __future__ import annotations

import pytest

from .support import compose_command


@pytest.fixture(scope="session")
def compose() -> list[str]:
    cmd = compose_command()
    if cmd is None:
        pytest.fail(
            "neither `docker compose` nor `docker-compose` found; "
            "install it with: sudo apt-get install -y docker-compose (scripts/system-deps.sh does)"
        )
    return cmd
