"""Progress off a terminal: plain lines, at the start, at most every PLAIN_EVERY_S while a
stage moves, and at its end; extraction reports bytes as it goes (not 0/1 then 1/1)."""

from __future__ import annotations

import io
from pathlib import Path

from basketbench.cli.progress import PlainProgress
from basketbench.measure.rootio.extract import extract_corpus
from rich.console import Console

from tests.measure.conftest import real_file


def test_plain_lines_are_periodic_and_say_the_share() -> None:
    out = io.StringIO()
    now = [0.0]
    plain = PlainProgress(Console(file=out, width=200), "advise", {"extract": "bytes"},
                          every_s=10.0, clock=lambda: now[0])
    for i in range(0, 101):
        now[0] = i * 0.5  # 50 s for the stage, an update every half second
        plain("extract", i * 20_000, 2_000_000)
    plain("extract", 2_000_000, 2_000_000)  # a repeated end is not printed again
    lines = out.getvalue().splitlines()
    assert lines[0] == "[advise] extract: 0 % (0.0 of 2.0 MB), 0 s"
    assert lines[-1] == "[advise] extract: 100 % (2.0 of 2.0 MB), 50 s"
    assert len(lines) == 6  # the start, every 10 s, and the end at 50 s
    assert lines[1] == "[advise] extract: 20 % (0.4 of 2.0 MB), 10 s"


def test_extraction_progress_moves_in_bytes(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    extract_corpus([real_file("uproot-HZZ-zlib.root")], tmp_path / "hzz.bbc",
                   progress=lambda done, total: calls.append((done, total)))
    total = calls[0][1]
    assert calls[0] == (0, total) and calls[-1] == (total, total)
    inside = {done for done, _ in calls if 0 < done < total}
    assert len(inside) > 10, calls[:5]  # one step per basket, not 0/1 -> 1/1
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_corpus_info_names_pages_and_their_own_setting(tmp_path: Path) -> None:
    """An RNTuple file says 101, its pages 505: `corpus info` shows the pages' setting and
    counts pages as pages."""
    from basketbench.measure.rootio.corpus_format import CorpusWriter, read_corpus
    from basketbench.measure.rzbench.tables import corpus_table

    path = tmp_path / "nt.bbc"
    with CorpusWriter(path, "nt", created_by="test") as w:
        f = w.add_file("nt.root", 101, "0" * 64)
        for i in range(3):
            w.add_basket(file=f, tree="events", branch="px", basket=i, element_size=4,
                         entries=10, data_bytes=40, entry_offsets=None, raw=bytes(40),
                         root_compressed=None, fcompress=505, kind="page", column=0,
                         column_type="SplitReal32", encoding="split", bits=32, cluster=0)
        w.commit()
    console = Console(file=io.StringIO(), width=300)
    console.print(corpus_table(read_corpus(path)))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "pages 505 (file 101)" in text and "pages" in text.splitlines()[2]
    row = next(line for line in text.splitlines() if "nt.root" in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    assert cells[:5] == ["nt.root", "pages 505 (file 101)", "events", "0", "3"]
