"""Answer sizes for the fixed seeded world (conftest.WORLD): bytes of the JSON body per
endpoint, within 1 %. A field added to every point or row (a null included) grows the
answer by more than that and fails here, naming the endpoint; shrinking below the range
fails too, so the table is updated with the figure (and the reason) when an answer
changes on purpose."""

from __future__ import annotations

import pytest
from endpoints import request_urls

TOLERANCE = 0.01
# name -> bytes of the answer (uncompressed JSON).
EXPECTED_BYTES: dict[str, int] = {
    "history": 269_694,  # 1 000 points (builds by reference, issue 34)
    "tradeoff": 6_676,
    "compare commits": 36_141,  # 96 rows
    "compare machines": 35_943,  # no p or q values (no verdict on speeds measured apart)
    "machines": 2_575,
    "commits": 16_089,
    "runs": 27_794,  # speed_excluded per run (issue 32)
    "results": 30_620,
    "changes": 1_556,
    "recommend history": 14_730,
    "arena": 24_839,  # one board: 7 whole-file rows, 2 shape rows, 29 level-mapping rows
    "arena history": 1_914,  # 3 commits
}


@pytest.fixture(scope="module")
def urls(seeded_psycopg) -> dict[str, str]:
    return request_urls(seeded_psycopg)


@pytest.mark.parametrize("name", sorted(EXPECTED_BYTES))
def test_answer_size(reads, urls, name):
    answer = reads.get(urls[name])
    assert answer.status_code == 200, answer.text[:300]
    size, want = len(answer.content), EXPECTED_BYTES[name]
    assert abs(size - want) <= want * TOLERANCE, (
        f"{name}: {size:,} bytes, expected {want:,} +- {TOLERANCE:.0%} ({urls[name]})")
