"""The codec arena: candidate codecs inside ROOT's framing, measured on a ROOT file's own
buffers against ROOT's current choice (docs/arena.md)."""

from basketbench.measure.arena.candidates import CANDIDATE_NAMES
from basketbench.measure.arena.run import (
    DEFAULT_PAIRS,
    DEFAULT_TARGET_MS,
    SCHEMA,
    ArenaError,
    ArenaInputError,
    run_arena,
)

__all__ = ["CANDIDATE_NAMES", "DEFAULT_PAIRS", "DEFAULT_TARGET_MS", "SCHEMA", "ArenaError",
           "ArenaInputError", "run_arena"]
