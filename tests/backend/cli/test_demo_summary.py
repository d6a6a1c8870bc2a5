"""The demo's summary says its timings in words, not as a Python dict."""

from __future__ import annotations

from basketbench_devtools.demo.summary import _timings


def test_timings_in_words() -> None:
    assert _timings({"build": 12.34, "benchmark": 40.06}) == "build 12.3 s, benchmark 40.1 s"
    assert _timings({}) == "no timings" and _timings(None) == "no timings"
    assert _timings({"stage": "upload"}) == "stage upload"
