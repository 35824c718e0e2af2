"""The soak test's inputs are the largest each page accepts (no browser, no server: cheap)."""

from __future__ import annotations

import random

from bench import soak
from explorer.context.sentences import MAX_SENTENCES
from explorer.data import uploads
from explorer.probing import datasets
from explorer.server import limits


def test_csv_uploads_sit_just_under_the_row_and_byte_limits(tmp_path):
    for with_word in (False, True):
        path = soak.csv_file(random.Random(0), tmp_path, f"{with_word}.csv", with_word)
        data = path.read_bytes()
        assert 0.95 * uploads.MAX_BYTES < len(data) <= uploads.MAX_BYTES
        frame = datasets.read_labelled_csv(data)[0]
        assert len(frame) == datasets.MAX_ROWS
        assert ("word" in frame.columns) == with_word


def test_pasted_lines_hit_the_row_limit_and_the_word_repeats():
    text = soak.lines(random.Random(0), uploads.MAX_ROWS, 40, "bank")
    rows = uploads.texts_from_lines(text)
    assert len(rows) == uploads.MAX_ROWS
    assert sum(row.split().count("bank") for row in rows) > limits.MAX_OCCURRENCES


def test_word_in_context_text_has_the_most_lines():
    rows = soak.context_text(random.Random(0)).splitlines()
    assert len(rows) == MAX_SENTENCES
    assert all(row.split().count("bank") >= 255 for row in rows)


def test_every_page_of_the_app_is_soaked():
    assert {step.page for step in soak.STEPS} == set(soak.PAGE_NAMES.values())


def test_the_heavy_and_light_case_uploads_the_most_vectors_the_server_accepts(tmp_path):
    from bench import fairness
    from explorer.data import vectorfiles

    npy, csv = fairness.vector_files(tmp_path)
    assert max(npy.stat().st_size, csv.stat().st_size) <= vectorfiles.MAX_BYTES
    data = vectorfiles.read_table(npy.read_bytes(), csv.read_bytes(), None).select("text", None)
    assert data.vectors.shape == (limits.MAX_POINTS, fairness.DIMENSIONS)
    assert len(fairness.LIGHT_SENTENCES.splitlines()) == 3  # Similarity's fewest
