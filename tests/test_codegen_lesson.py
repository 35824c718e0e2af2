"""How contextual?'s headline snippet reproduces the lesson's numbers and prints the headline."""

from __future__ import annotations

import numpy as np

import explorer
from explorer.codegen.lesson import SENTENCES_FILE, lesson_snippet
from explorer.data import corpora
from explorer.data.export import to_csv_bytes
from explorer.explain import classic_lesson
from explorer.explain._classic import REFERENCES
from explorer.figures.explain_notices import ANISOTROPIC, classic_notice
from explorer.model.ref import ModelRef
from tests.snippets import assert_prints_headline, run_snippet


def test_lesson_snippet_prints_the_headline(bundled, tmp_path):
    frame = corpora.load_senses()[["word", "sense", "text"]]
    (tmp_path / SENTENCES_FILE).write_bytes(to_csv_bytes(frame))  # as the page downloads it
    namespace, printed = run_snippet(
        lesson_snippet(ModelRef(explorer.DEFAULT_MODEL)), folder=tmp_path
    )
    measures, senses = classic_lesson(bundled, frame)
    for name, curve in namespace["measures"].items():
        np.testing.assert_allclose(curve, measures[name], atol=1e-5, err_msg=name)
    np.testing.assert_allclose(namespace["accuracy"], senses["accuracy"], atol=1e-9)
    assert namespace["chance"] == senses["chance"].iloc[0]
    # the thresholds and the paper's bound are the notice's, not the model's numbers
    constants = (str(ANISOTROPIC), f"{REFERENCES['mev'].value:.0%}")
    for sentence in classic_notice(measures, senses):
        assert_prints_headline(printed, sentence, constants)
