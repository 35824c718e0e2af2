"""The soak test's inputs are the largest each page accepts (no browser, no server: cheap)."""

from __future__ import annotations

import random

import pytest

from bench import soak_steps as soak
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
    from bench.classroom import page_paths

    assert set(soak.PAGE_NAMES) == set(page_paths()) - {"home"}
    assert {step.page for step in soak.STEPS} == set(soak.PAGE_NAMES.values())
    modes = {(step.page, step.mode) for step in soak.STEPS}
    # Issue 24: the lens and the random-weights baseline are soaked too (Projections is the
    # page that offers the baseline, as "Compare with").
    assert ("Attention", "masked-LM lens") in modes
    assert any(page == "Projections" and "random weights" in mode for page, mode in modes)
    assert any(page == "Projections" and "motion" in mode for page, mode in modes)


def test_the_lens_steps_run_only_for_a_model_with_a_head():
    with_head = soak.steps_for(["attention"], masked_lm=True)
    without = soak.steps_for(["attention"], masked_lm=False)
    assert [s.mode for s in with_head] == [s.mode for s in without] + ["masked-LM lens"]
    assert {s.page for s in soak.steps_for([], masked_lm=False)} == set(soak.PAGE_NAMES.values())
    assert [s.page for s in soak.steps_for(["probe", "tokens"])][0] == "Which layer?"
    with pytest.raises(ValueError, match="Unknown page"):
        soak.steps_for(["nowhere"])


def test_the_lens_text_has_more_masks_than_the_lens_predicts(bundled):
    text = soak.masked_text(random.Random(0))
    ids = bundled.tokenizer(text)["input_ids"]  # as the lens reads it: [MASK] is its syntax
    assert ids.count(bundled.tokenizer.mask_token_id) > limits.MAX_LENS_MASKS


def test_the_soak_picks_the_model_folder_in_every_page_link(tmp_path):
    from bench import soak as run

    query, env = run.model_query(str(tmp_path))
    assert env == {"EXPLORER_MODELS": str(tmp_path)} and query == {
        "model": f"{tmp_path.name} (local)"
    }
    assert run.model_query(None) == ({}, {})
    assert not run.has_head(None)


def test_the_soak_gives_several_models_to_the_sessions_in_turn(tmp_path):
    from bench import soak as run

    folders = [str(tmp_path / name) for name in ("base-a", "base-b")]
    queries, env = run.models_query(folders, {"layers.cka_random": "true"})
    assert env == {"EXPLORER_MODELS": ",".join(folders)}
    assert queries == [
        {"model": "base-a (local)", "layers.cka_random": "true"},
        {"model": "base-b (local)", "layers.cka_random": "true"},
    ]


def test_the_heavy_and_light_case_uploads_the_most_vectors_the_server_accepts(tmp_path):
    from bench import fairness
    from explorer.data import vectorfiles

    npy, csv = fairness.vector_files(tmp_path)
    assert max(npy.stat().st_size, csv.stat().st_size) <= vectorfiles.MAX_BYTES
    data = vectorfiles.read_table(npy.read_bytes(), csv.read_bytes(), None).select("text", None)
    assert data.vectors.shape == (limits.MAX_POINTS, fairness.DIMENSIONS)
    assert len(fairness.LIGHT_SENTENCES.splitlines()) == 3  # Similarity's fewest


def test_the_soak_offers_model_b_and_picks_it_on_the_compare_page(tmp_path):
    from bench import soak as run

    a, b = str(tmp_path / "base-a"), str(tmp_path / "base-b")
    query, env = run.with_model_b({"model": "base-a (local)"}, {"EXPLORER_MODELS": a}, b)
    assert env == {"EXPLORER_MODELS": f"{a},{b}"}
    assert query == {"model": "base-a (local)", "compare.model_b": "base-b (local)"}
    queries, env = run.with_model_b([{}, {}], {}, b)  # the bundled model A
    assert env == {"EXPLORER_MODELS": b} and queries == [{"compare.model_b": "base-b (local)"}] * 2
