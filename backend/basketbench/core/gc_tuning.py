"""Python's cyclic garbage collector, tuned for a long-running API process.

A history or compare answer allocates tens of thousands of short-lived objects (rows,
dicts, floats). With the default thresholds (700, 10, 10) that triggers a collection
every few hundred allocations and, every hundred of them, a full collection that walks
every object alive -- several million after start-up (SQLAlchemy, pydantic, numpy and
scipy modules and caches) -- which showed as +100-120 ms on every 9th-10th compare.

``tuned`` (the default):
- after start-up and the warm-up imports, ``gc.freeze()`` moves every object alive into
  the permanent generation, so no collection ever walks them again;
- gen0 threshold raised so one request's garbage is collected in a few larger steps, not
  hundreds; gen1 / gen2 thresholds keep full collections rare. Reference counting frees
  almost everything anyway: the collector only exists for reference cycles.
``default`` leaves CPython's settings (for comparisons: ``BASKETBENCH_GC=default``).
"""

from __future__ import annotations

import gc
import logging
from typing import Literal

GcMode = Literal["tuned", "default"]
TUNED_THRESHOLDS = (50_000, 20, 100)

log = logging.getLogger(__name__)


def apply(mode: GcMode) -> None:
    if mode == "default":
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(*TUNED_THRESHOLDS)
    log.info("gc tuned: %d objects frozen, thresholds %s", gc.get_freeze_count(),
             TUNED_THRESHOLDS)
