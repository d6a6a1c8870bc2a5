"""Precision lost by a lossy representation: absolute and relative errors of the values a
reader gets back against the values written."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ErrorStats:
    max_abs_error: float
    max_rel_error: float  # over the values that are not zero
    rms_rel_error: float
    compared: int  # finite values compared
    skipped: int  # values left out: not finite, or zero for the relative errors


def error_stats(written: np.ndarray, read: np.ndarray) -> ErrorStats:
    x = np.asarray(written, np.float64)
    y = np.asarray(read, np.float64)
    finite = np.isfinite(x) & np.isfinite(y)
    x, y = x[finite], y[finite]
    if not len(x):
        return ErrorStats(0.0, 0.0, 0.0, 0, int((~finite).sum()))
    diff = np.abs(y - x)
    nonzero = x != 0
    rel = diff[nonzero] / np.abs(x[nonzero])
    return ErrorStats(
        max_abs_error=float(diff.max()),
        max_rel_error=float(rel.max()) if len(rel) else 0.0,
        rms_rel_error=float(np.sqrt(np.mean(rel * rel))) if len(rel) else 0.0,
        compared=int(len(x)),
        skipped=int((~finite).sum() + (~nonzero).sum()),
    )
