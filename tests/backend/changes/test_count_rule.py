"""stats/counts.py: the count threshold and the speed attribution."""

from __future__ import annotations

import pytest
from basketbench.stats.counts import attribute_speed_change, count_change, count_changes

BEFORE = {"compress_instructions_per_mb": 1_000_000.0, "decompress_instructions_per_mb": 400_000.0}


def test_threshold_is_strict_and_configurable() -> None:
    assert not count_change("m", 1000, 1005).changed  # 0.5 %: not more than the threshold
    assert count_change("m", 1000, 1006).changed
    assert not count_change("m", 1000, 1006, threshold_percent=1.0).changed
    with pytest.raises(ValueError, match="threshold"):
        count_change("m", 1, 2, threshold_percent=-1)


def test_count_changes_lists_only_moved_metrics() -> None:
    after = {**BEFORE, "decompress_instructions_per_mb": 404_400.0}  # +1.1 %
    moved = count_changes(BEFORE, after)
    assert [(c.metric, round(c.percent, 3)) for c in moved] == [
        ("decompress_instructions_per_mb", 1.1)]
    assert count_changes(BEFORE, {"compress_instructions_per_mb": None}) == []


def test_speed_change_attributed_by_the_same_operations_counts() -> None:
    after = {**BEFORE, "decompress_instructions_per_mb": 404_400.0}
    assert attribute_speed_change("decompress_mbps", BEFORE, after).attribution == "code"
    machine = attribute_speed_change("compress_mbps", BEFORE, after)
    assert machine.attribution == "probably the machine" and "+0.000 %" in machine.reason
    assert attribute_speed_change("compress_mbps", BEFORE, {}).attribution is None
    assert attribute_speed_change("ratio", BEFORE, after).attribution is None
    busy = attribute_speed_change("decompress_mbps", BEFORE, after, busy=True)
    assert busy.attribution == "busy machine: not tested"
