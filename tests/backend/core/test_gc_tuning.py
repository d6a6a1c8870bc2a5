"""Issue 13: the API process's collector settings (core/gc_tuning.py)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import gc, json
from basketbench.core import gc_tuning
before = gc.get_threshold()
gc_tuning.apply({mode!r})
print(json.dumps({{"before": before, "after": gc.get_threshold(),
                   "frozen": gc.get_freeze_count()}}))
"""


def probe(mode: str) -> dict[str, list[int] | int]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(mode=mode)], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    result: dict[str, list[int] | int] = json.loads(out)
    return result


def test_tuned_freezes_start_up_objects_and_raises_the_thresholds():
    from basketbench.core.gc_tuning import TUNED_THRESHOLDS

    tuned = probe("tuned")
    assert tuned["after"] == list(TUNED_THRESHOLDS) and tuned["before"] != tuned["after"]
    assert isinstance(tuned["frozen"], int) and tuned["frozen"] > 1_000


def test_default_leaves_cpython_alone():
    plain = probe("default")
    assert plain["after"] == plain["before"] and plain["frozen"] == 0


def test_the_app_applies_the_setting_at_start_up(settings):
    import gc

    from basketbench.app import create_app
    from fastapi.testclient import TestClient

    old = gc.get_threshold()
    try:
        settings.gc = "tuned"
        with TestClient(create_app(settings)) as c:
            assert c.get("/api/v1/health").status_code == 200
            assert gc.get_threshold() == (50_000, 20, 100) and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*old)
