"""A rerun of the Projections page with a wide CSV uploaded (issue 32, finding 10).

``python -m bench.wide_upload [--columns 1000] [--rows 2000] [--reruns 5]`` uploads a CSV of a
text column and ``columns - 1`` short numeric columns through Streamlit's ``AppTest`` (in
this process, the default model), waits for the first map, then reruns the page with nothing
changed and prints each rerun's seconds and their median. Absolute seconds move with the
machine's load: compare runs made side by side.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
import pandas as pd

from bench.measure import ROOT


def wide_csv(columns: int, rows: int, seed: int = 0) -> bytes:
    """A CSV of ``rows`` short sentences and ``columns - 1`` columns of small integers."""
    rng = np.random.default_rng(seed)
    frame = {"text": [f"Sentence {i} is about {('dogs', 'cats')[i % 2]}." for i in range(rows)]}
    for j in range(columns - 1):
        frame[f"c{j}"] = rng.integers(0, 10, rows).astype(str)
    return pd.DataFrame(frame).to_csv(index=False).encode()


def reruns(columns: int, rows: int, times: int, timeout: float = 900.0) -> dict:
    """Seconds of ``times`` reruns of the Projections page with the wide CSV uploaded."""
    from streamlit.testing.v1 import AppTest

    data = wide_csv(columns, rows)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout).run()
    at.switch_page("pages/projections.py").run()
    at.radio(key="projections.source").set_value("upload").run()
    at.file_uploader(key="projections.csv").set_value(("wide.csv", data, "text/csv"))
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    assert not at.exception, [e.message for e in at.exception]
    assert at.get("plotly_chart"), "no map was drawn"
    assert len(at.selectbox(key="projections.colour").options) > columns  # every column offered
    seconds = []
    for _ in range(times):
        start = time.perf_counter()
        at.run()
        seconds.append(time.perf_counter() - start)
        assert not at.exception, [e.message for e in at.exception]
    return {
        "columns": columns,
        "rows": rows,
        "bytes": len(data),
        "first_run_seconds": round(first, 2),
        "rerun_seconds": [round(s, 2) for s in seconds],
        "median_rerun_seconds": round(statistics.median(seconds), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--reruns", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(reruns(args.columns, args.rows, args.reruns)))


if __name__ == "__main__":
    main()
