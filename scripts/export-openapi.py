#!/usr/bin/env python3
"""Write the API's OpenAPI document to frontend/openapi.json (input of the TS client)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from basketbench.app import create_app
from basketbench.core.config import Settings


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else (
        Path(__file__).resolve().parents[1] / "frontend" / "openapi.json")
    # An in-memory database: building the schema must not touch any real one.
    app = create_app(Settings(database_url="sqlite://", frontend_dist=Path("/nonexistent")))
    out.write_text(json.dumps(app.openapi(), indent=2, sort_keys=False) + "\n")
    print(out)


if __name__ == "__main__":
    main()
