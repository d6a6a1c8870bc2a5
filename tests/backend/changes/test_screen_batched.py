"""The screen's batched arithmetic gives what its row-by-row definition gives: the runs'
standard errors (stats/speed.within_se) and the level test's row medians
(stats/speed.row_nanmedians) bit for bit, the log matrix of the single and pair tests
(stats/engine._log_matrix) as row by row, the drift rule's first cut
(stats/drift.shifts) never stopping a series find_drift would report, and a family fed
median arrays and lazily made points (changes/detection/cells.py) screened as one fed
point lists."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from basketbench.stats import drift
from basketbench.stats.engine import SeriesInput, SeriesPoint, _log_matrix, screen
from basketbench.stats.speed import MEDIAN_EFFICIENCY, SpeedRule, row_nanmedians, within_se


def _within_se_by_row(samples: list[list[float]]) -> list[float]:
    """The definition: each run alone, its non-finite logs left out."""
    out = []
    for s in samples:
        with np.errstate(divide="ignore", invalid="ignore"):
            arr = np.log(np.asarray(s, dtype=float))
        arr = arr[np.isfinite(arr)]
        out.append(math.sqrt(MEDIAN_EFFICIENCY) * float(np.std(arr, ddof=1))
                   / math.sqrt(arr.size) if arr.size >= 3 else math.nan)
    return out


def test_within_se_of_many_runs_is_the_row_by_row_value_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    samples = [rng.lognormal(4, 0.02, int(rng.integers(0, 25))).tolist() for _ in range(600)]
    for k in range(0, 600, 37):  # runs with a sample <= 0 (left out) or too few samples
        if len(samples[k]) > 2:
            samples[k][1] = 0.0 if k % 2 else -1.0
    got = within_se(samples).tolist()
    want = _within_se_by_row(samples)
    assert [g if g == g else None for g in got] == [w if w == w else None for w in want]
    assert sum(g == g for g in got) > 400  # most runs had a value


def test_the_drift_first_cut_never_stops_a_drift_find_drift_reports() -> None:
    rng = np.random.default_rng(11)
    rows, min_pct, window = [], 3.0, 120
    for i in range(3000):
        n = int(rng.integers(20, 160))
        # slopes around the cut: a shift of ~min_pct over the window, and plain noise
        size = rng.choice([0.0, 1.0, -1.0]) * rng.uniform(0.5, 1.5) * min_pct / 100
        slope = size / min(n, window)
        rows.append(100 * np.exp(slope * np.arange(n) + rng.normal(0, 0.002 + 0.01 * (i % 3), n)))
    cut = drift.shifts(rows, window)
    reported = stopped = 0
    for row, shift in zip(rows, cut.tolist(), strict=True):
        found = drift.find_drift(row, min_pct, window)
        if found is not None:
            reported += 1
            assert drift.may_pass(shift, min_pct)
            assert shift == pytest.approx(found.shift, rel=1e-9)
        if not drift.may_pass(shift, min_pct):
            stopped += 1
            assert found is None
    assert reported > 100 and stopped > 500  # both sides of the cut were exercised
    assert math.isnan(drift.shifts([np.full(10, 100.0)], window)[0])  # too few points


def test_a_family_of_median_arrays_is_screened_as_one_of_point_lists() -> None:
    rng = np.random.default_rng(2)
    rule = SpeedRule()
    points = []
    for s in range(120):
        level = np.full(80, 100.0)
        if s % 10 == 0:  # a step on some series, at various places
            level[40 + s // 10:] *= 0.95
        runs = level * (1 + rng.normal(0, 0.004, 80))
        points.append([SeriesPoint(c, [float(runs[c])], (runs[c] * (1 + rng.normal(
            0, 0.004, 9))).tolist()) for c in range(80)])
    lists = [SeriesInput(s, pts, 2.0, {5} if s == 30 else set()) for s, pts in enumerate(points)]
    arrays = [SeriesInput(s, pts, 2.0, {5} if s == 30 else set(),
                          np.array([p.median for p in pts])) for s, pts in enumerate(points)]
    a, b = screen(lists, rule), screen(arrays, rule)
    assert a == b and len(a) >= 5


def test_the_newest_points_standard_error_given_screens_as_its_samples() -> None:
    """The service gives the newest point's within-run standard error from its packed
    points (a commit measured once) instead of its samples: the same candidates, and the
    tests do read it (a wrong value loses the step on the newest commit)."""
    rng = np.random.default_rng(4)
    rule = SpeedRule()
    points = []
    for s in range(40):
        runs = 100.0 * (1 + rng.normal(0, 0.004, 60))
        if s in (1, 3):
            runs[-1] *= 0.92  # a step on the newest commit
        points.append([SeriesPoint(c, [float(runs[c])], (runs[c] * (1 + rng.normal(
            0, 0.004, 9))).tolist()) for c in range(60)])

    def family(se: Callable[[list[SeriesPoint]], float] | None) -> list[SeriesInput]:
        def newest_without_samples(pts: list[SeriesPoint]) -> list[SeriesPoint]:
            return [*pts[:-1], SeriesPoint(pts[-1].commit, pts[-1].runs, [])]
        return [SeriesInput(s, pts if se is None or s % 2 == 0 else
                            newest_without_samples(pts), 2.0, set(),
                            np.array([p.median for p in pts]),
                            None if se is None or s % 2 == 0 else se(pts))
                for s, pts in enumerate(points)]

    from basketbench.stats.engine import tested_candidates
    samples = tested_candidates(family(None), rule)
    assert {c.series for c in samples if c.test == "single"} >= {1, 3}
    given = tested_candidates(family(lambda pts: float(within_se([pts[-1].samples])[0])), rule)
    assert given == samples
    wrong = tested_candidates(family(lambda pts: 1.0), rule)
    assert not {c.series for c in wrong if c.test == "single"} & {1, 3}


def test_split_shifts_are_the_medians_of_both_parts_bit_for_bit() -> None:
    from basketbench.stats import edivisive

    rng = np.random.default_rng(8)
    rows = [np.log(rng.lognormal(3, 0.01, int(rng.integers(10, 61)))) for _ in range(500)]
    rows += [np.log(np.full(12, 50.0))]  # ties everywhere
    splits = [int(rng.integers(5, x.size - 4)) for x in rows]
    got = edivisive.split_shifts(rows, splits)
    want = [np.median(x[k:]) - np.median(x[:k]) for x, k in zip(rows, splits, strict=True)]
    assert [float(g) for g in got] == [float(w) for w in want]
    assert {x.size - k for x, k in zip(rows, splits, strict=True)} >= {5, 6}  # odd, even


def test_split_statistics_in_blocks_are_each_rows_own_bit_for_bit() -> None:
    """_split_stats computes BLOCK_ROWS rows at a time (permutation batches are up to 512):
    every row's Q must be the bits of that row computed alone, at any block boundary."""
    from basketbench.stats import edivisive

    rng = np.random.default_rng(9)
    for p in (1, edivisive.BLOCK_ROWS, edivisive.BLOCK_ROWS + 1, 3 * edivisive.BLOCK_ROWS + 7):
        x = np.log(rng.lognormal(3, 0.02, (p, 60)))
        whole = edivisive._split_stats(x, 5)
        alone = np.vstack([edivisive._block_stats(row[None, :], 5) for row in x])
        assert whole.shape == (p, 61)
        assert whole.tobytes() == alone.tobytes(), p


def test_the_window_groups_large_ids_as_small_ones() -> None:
    """Ids beyond 21 bits take np.unique over rows instead of one packed int per entry:
    the same distinct triples, first entries and inverse."""
    from basketbench.changes.detection.points import DTYPE, _distinct_triples

    rng = np.random.default_rng(4)
    entries = np.zeros(2000, dtype=DTYPE)
    entries["dataset"] = rng.integers(1, 5, 2000)
    entries["configuration"] = rng.integers(1, 40, 2000)
    entries["codec_set"] = rng.integers(-1, 3, 2000)
    small = _distinct_triples(entries)
    shifted = entries.copy()
    shifted["configuration"] += 1 << 22
    large = _distinct_triples(shifted)
    assert (large[0][:, 1] - (1 << 22)).tolist() == small[0][:, 1].tolist()
    assert large[0][:, [0, 2]].tolist() == small[0][:, [0, 2]].tolist()
    assert large[1].tolist() == small[1].tolist()
    assert large[2].reshape(-1).tolist() == small[2].reshape(-1).tolist()


def _bits(x: np.ndarray) -> list[int | None]:
    return [None if v != v else int(b) for v, b in zip(x.tolist(), x.view(np.int64).tolist(),
                                                       strict=True)]


def test_row_medians_are_numpys_nanmedian_bit_for_bit() -> None:
    """Rows of the level test: NaN padding after the runs, NaNs anywhere, ties, signed
    zeros, empty rows; odd and even counts."""
    rng = np.random.default_rng(11)
    for _ in range(400):
        rows, width = int(rng.integers(1, 120)), int(rng.integers(1, 65))
        x = rng.normal(rng.normal(0, 3), rng.choice([1e-6, 0.01, 1.0]), (rows, width))
        if rng.random() < 0.4:
            x = np.round(x, int(rng.integers(0, 3)))  # ties and -0.0
        runs = rng.integers(0, width + 1, rows)
        x[np.arange(width)[None, :] >= runs[:, None]] = np.nan
        if rng.random() < 0.3:
            x[rng.random((rows, width)) < 0.1] = np.nan
        with warnings.catch_warnings():  # numpy warns of all-NaN rows
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.nanmedian(x, axis=1)
        assert _bits(row_nanmedians(x)) == _bits(want)


def test_the_log_matrix_is_each_rows_log_left_aligned() -> None:
    rng = np.random.default_rng(12)
    for width in (0, 1, 7, 30):
        rows: list[list[float] | np.ndarray] = []
        for k in range(300):
            row = rng.lognormal(3, 1, int(rng.integers(0, 40)))
            rows.append(row.tolist() if k % 2 else row)
        want = np.full((len(rows), max(width, 1)), np.nan)
        for i, row in enumerate(rows):
            tail = np.log(np.asarray(row[-width:] if width else [], dtype=float))
            want[i, :tail.size] = tail
        got = _log_matrix(rows, width)
        assert got.shape == want.shape
        assert [_bits(r) for r in got] == [_bits(r) for r in want]


def test_documents_of_one_layout_give_the_distinct_triples_of_all_their_entries() -> None:
    """Documents that list the same series in the same order are answered from the first
    (points._distinct_triples with their sizes): the same triples, first entries and
    inverse as over every entry; documents that differ anywhere take the general way."""
    from basketbench.changes.detection.points import DTYPE, _distinct_triples

    rng = np.random.default_rng(6)
    layout = np.zeros(300, dtype=DTYPE)
    layout["dataset"] = rng.integers(1, 5, 300)
    layout["configuration"] = rng.integers(1, 40, 300)
    layout["codec_set"] = rng.integers(-1, 3, 300)
    docs = [layout.copy() for _ in range(7)]
    for d in docs:
        d["c_median"] = rng.random(300)
    for changed in (None, "dataset", "configuration", "codec_set"):
        if changed is not None:  # one entry of one document names another series
            docs[4] = layout.copy()
            docs[4][changed][17] += 1
        entries = np.concatenate(docs)
        given = _distinct_triples(entries, [d.size for d in docs])
        every = _distinct_triples(entries)
        assert given[0].tolist() == every[0].tolist(), changed
        assert given[1].tolist() == every[1].tolist(), changed
        assert given[2].reshape(-1).tolist() == every[2].reshape(-1).tolist(), changed


def test_a_window_of_one_run_per_cell_has_the_run_medians_of_the_sums(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Cells of one entry each: the run medians and standard errors taken from the entries
    are, bit for bit, what the per-cell sums give (busy runs, speeds <= 0 and NaN left
    out, NaN standard errors kept)."""
    from basketbench.changes.detection import points

    rng = np.random.default_rng(7)
    docs = []
    for _ in range(9):
        d = np.zeros(50, dtype=points.DTYPE)
        d["dataset"], d["configuration"], d["codec_set"] = 1, np.arange(50), -1
        for column in ("c_median", "d_median"):
            d[column] = rng.lognormal(4, 0.3, 50) * rng.choice([1, 1, 1, -1, 0, np.nan], 50)
        for column in ("c_se", "d_se"):
            d[column] = rng.choice([0.001, 0.002, np.nan], 50)
        docs.append(d)
    order = {100 + k: k for k in range(9)}
    arrays = [(100 + k, k in (2, 5), d) for k, d in enumerate(docs)]  # 2 and 5: busy
    # (no codec set: every entry's series key without a database)
    monkeypatch.setattr(points, "series_keys", lambda _session, ids: dict.fromkeys(ids, "host"))
    window = points._Window(None, order, arrays, {(1, c, "host") for c in range(50)})  # type: ignore[arg-type]
    assert window.single
    for column in ("c_median", "d_median"):
        fast = window._run_medians(column)
        window.single = False
        summed = window._run_medians(column)
        window.single = True
        assert _bits(fast[0]) == _bits(summed[0]), column
        assert _bits(fast[1]) == _bits(summed[1]), column
