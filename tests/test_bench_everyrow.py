"""bench.everyrow's table without a browser: each figure against issue 38's target."""

from __future__ import annotations

from bench.everyrow import rows_of


def test_rows_compare_each_figure_with_its_target():
    results = {
        "rows": 1_000_000,
        "first session first draw s": 9.0,
        "zoom s": [0.4, 1.2],
        "click s": [0.3, 0.9, 0.4],
        "first session MB to first draw": 21.0,
        "server GB, 4 sessions": 1.2,
        "first draw s at 250,000 rows": 4.5,
    }
    rows = rows_of(results)
    assert [row.met for row in rows] == [True, False, True, True, True, False]
    assert rows[2].value == 0.4 and "1,000,000-row" in rows[0].measure
    results["clicks lost"] = 1  # a panel that never came: the click misses its target
    assert [row.met for row in rows_of(results)][2] is False
    del results["first draw s at 250,000 rows"]
    assert len(rows_of(results)) == 5
