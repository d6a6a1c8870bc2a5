"""The JSON Schema of harness result documents: ``result_schema()`` is the one loader of
harness-result-v1.schema.json (beside this file)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

RESULT_SCHEMA_PATH = Path(__file__).with_name("harness-result-v1.schema.json")


@lru_cache
def result_schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RESULT_SCHEMA_PATH.read_text())
    return data
