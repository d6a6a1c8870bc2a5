"""Locations inside the source checkout (the package is installed editable from it)."""

from __future__ import annotations

from pathlib import Path


def repo_root() -> Path:
    # backend/basketbench/measure/paths.py -> the checkout root
    return Path(__file__).resolve().parents[3]
