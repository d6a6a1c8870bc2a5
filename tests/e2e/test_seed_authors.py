"""The browser tests' seeded history credits invented people (their names show in
screenshots), never real ROOT developers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SEED = Path(__file__).with_name("seed.py")
# The real names the seed once used: they must not come back.
REAL_PEOPLE = {"Jakob Blomer", "Philippe Canal", "Oksana Shadura", "Jonas Hahnfeld"}


def test_seed_authors_are_invented() -> None:
    spec = importlib.util.spec_from_file_location("bb_seed", SEED)
    assert spec is not None and spec.loader is not None
    seed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seed)
    shas = [seed.fake_sha(i) for i in range(8)]
    from datetime import UTC, datetime

    payload = seed.push_payload(shas, datetime(2026, 1, 1, tzinfo=UTC))
    authors = {c["author"]["name"] for c in payload["commits"]}
    emails = {c["author"]["email"] for c in payload["commits"]}
    assert len(authors) == 4
    assert not authors & REAL_PEOPLE
    assert all(e.endswith("@example.org") for e in emails), emails
    assert "cern.ch" not in SEED.read_text()
