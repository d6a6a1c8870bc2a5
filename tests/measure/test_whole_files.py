"""measure/whole_files.replace_text: the file holds the new text or the old one, never a
part, and no temporary is left behind either way."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from basketbench.measure.whole_files import replace_text


def test_writes_and_replaces_leaving_only_the_file(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    replace_text(target, '{"a": 1}\n')
    replace_text(target, '{"a": 2}\n')
    assert target.read_text() == '{"a": 2}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]


def test_a_failed_write_keeps_the_old_text_and_removes_its_temporary(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old\n")
    with pytest.raises(UnicodeEncodeError):
        replace_text(target, "half \udcff written")  # a lone surrogate: no UTF-8 for it
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_concurrent_writers_leave_one_whole_text(tmp_path: Path) -> None:
    target = tmp_path / "evidence.jsonl"
    texts = [f"{k}\n" * 20_000 for k in range(8)]  # big enough for the writes to overlap
    threads = [threading.Thread(target=replace_text, args=(target, t)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert target.read_text() in texts
    assert [p.name for p in tmp_path.iterdir()] == ["evidence.jsonl"]
