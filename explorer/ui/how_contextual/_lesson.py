"""The "How contextual?" page's computations and sections: the classic measurements of
:mod:`explorer.explain` on the built-in sense sentences (cached, in the heavy lane, with a
progress bar), their chart beside the papers' findings, and one word up close with its code."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.codegen.explain import classic_snippet
from explorer.codegen.isotropy import isoscore_snippet
from explorer.codegen.lesson import SENTENCES_FILE, lesson_snippet
from explorer.data import corpora
from explorer.explain import REFERENCES, classic_lesson, word_measures
from explorer.figures.explain import classic_figure
from explorer.figures.explain_notices import classic_table
from explorer.figures.isotropy import isotropy_figure
from explorer.model.ref import ModelRef
from explorer.server import limits
from explorer.ui import compute, messages, presentation
from explorer.ui.model_in_use import load
from explorer.ui.progress import progress_bar
from explorer.ui.widgets import URL, csv_download, show_code

Rows = tuple[tuple[str, str, str], ...]
"""Labelled sentences as ``(word, sense, text)`` rows: hashable, so they key the caches."""

WORD_COLUMNS = {
    "self_similarity": st.column_config.NumberColumn("self-similarity", format="%.3f"),
    "mev": st.column_config.NumberColumn("max. explainable variance", format="%.3f"),
    "sense_accuracy": st.column_config.NumberColumn("sense accuracy", format="%.0f%%"),
}
"""Headings and formats of the one-word table's columns (sense accuracy in percent)."""

Result = tuple[pd.DataFrame, pd.DataFrame]
"""``(measures, senses)``: :func:`explorer.explain.classic_measures` and
:func:`explorer.explain.sense_accuracy` of one model, as
:func:`explorer.explain.classic_lesson` gives them."""


def lesson_rows(model_ref: ModelRef) -> tuple[Rows, str | None]:
    """The built-in sense sentences one request measures with ``model_ref``
    (:func:`explorer.server.limits.cap_senses`: all of them for the bundled model, fewer for
    costlier ones) and the note saying what was kept, or ``None``."""

    def compute_rows() -> tuple[Rows, str | None]:
        frame, note = limits.cap_senses(load(model_ref), corpora.load_senses())
        return tuple(frame[["word", "sense", "text"]].itertuples(index=False, name=None)), note

    return compute.cached("states", ("lesson rows", model_ref), compute_rows)


def frame_of(rows: Rows) -> pd.DataFrame:
    """``rows`` as a DataFrame with columns ``word``, ``sense`` and ``text``."""
    return pd.DataFrame(list(rows), columns=["word", "sense", "text"])


def measurements(model_ref: ModelRef, rows: Rows, what: str = "") -> Result:
    """Cached ``(measures, senses)`` of ``model_ref`` (:meth:`ModelRef.random_twin` for the
    untrained baseline) on ``rows``: one heavy computation that reads each sentence once
    (:func:`explorer.explain.classic_lesson`), with a progress bar (``what`` names the model
    in it). The tables are shared between sessions: do not change them."""

    def compute_both() -> Result:
        frame = frame_of(rows)
        title = f"Reading {len(frame):,} sentences through every layer{what}…"
        with progress_bar(title) as report:
            return classic_lesson(load(model_ref), frame, progress=report)

    return compute.cached("probes", ("lesson", model_ref, rows), compute_both, heavy=True)


def chart(trained: Result, random: Result | None) -> None:
    """The measurements layer by layer (random weights dashed), with how to read them."""
    st.plotly_chart(
        classic_figure(
            *trained,
            random=random,
            mev_reference=REFERENCES["mev"].value,
            scale=presentation.scale(),
        ),
        width="stretch",
        key="contextual.chart",
    )
    st.caption(
        "Left: each measure minus what random tokens give at the same layer (the "
        "anisotropy baseline, also drawn): 0 means no more alike than two random tokens. "
        "Self-similarity near 1 = the word keeps one vector whatever the sentence (static); "
        "low = its vector depends on the sentence. Right: how often a word's vector is closest "
        "to the average vector of its own sense (each sentence left out of its sense's average)."
        + (" Dashed: the same architecture with random weights." if random else "")
    )


def isotropy(model_ref: ModelRef, trained: Result, random: Result | None, rows: Rows) -> None:
    """IsoScore (Rudman et al. 2022) of each layer's tokens beside their average cosine, what
    the paper says an average cosine misses, and the code that prints both."""
    measures = trained[0]
    st.subheader("How many directions? IsoScore", anchor=False)
    st.plotly_chart(
        isotropy_figure(
            measures, None if random is None else random[0], scale=presentation.scale()
        ),
        width="stretch",
        key="contextual.isotropy",
    )
    from explorer.figures.isotropy import isotropy_caption

    st.caption(isotropy_caption(measures))
    show_code(
        isoscore_snippet(model_ref, [text for *_, text in rows]),
        caption="Plain transformers + NumPy: IsoScore step by step at every layer, and the "
        "average cosine of every pair of tokens from different sentences (the chart samples "
        f"{measures.attrs['pairs']:,} pairs).",
        height=420,
    )


def headline_code(model_ref: ModelRef, rows: Rows) -> None:
    """ "Show code" for the headline: the sentences as a CSV and a program that reads them and
    prints the headline's numbers (:func:`explorer.codegen.lesson.lesson_snippet`)."""
    with st.expander("Show code"):
        st.caption(
            "Plain transformers + NumPy: every sentence through the model, the measurements "
            "minus their random-token baselines and the sense accuracy, layer by layer: the "
            f"numbers of the summary above. Save the sentences as {SENTENCES_FILE} beside it."
        )
        csv_download(
            st, "The sentences (.csv)", frame_of(rows), SENTENCES_FILE, "contextual.sentences"
        )
        st.code(lesson_snippet(model_ref), language="python")


def references(trained: Result) -> None:
    """The papers' findings on BERT-base beside this model's numbers, with their sources."""
    st.subheader("Beside the papers", anchor=False)
    st.table(classic_table(*trained).map(messages.escape), hide_index=True)
    st.caption(
        "The papers measured BERT-base on their own sentences, not these. Only the MEV bound "
        "is a number the source states; "
        "the other findings are quoted in words. The numbers here come from the model in use "
        "and this page's sentences, so compare shapes (what rises, what falls) more than "
        "levels."
    )


def measured(trained: Result, rows: Rows) -> None:
    """What was measured: the words, the sentences, the baseline's pairs, and a download."""
    measures, senses = trained
    words = measures.attrs["words"]
    with st.expander(
        f"What was measured: {len(rows)} sentences, {len(words)} words, "
        f"{senses.attrs['occurrences']} ambiguous-word occurrences"
    ):
        st.markdown(
            f"Self-similarity and MEV average over the **{len(words)} words** that occur whole "
            f"(not split into subwords) in 5 or more of the sentences: "
            f"{messages.escape(', '.join(words))}. Intra-sentence similarity averages over the "
            f"sentences; the baseline uses {measures.attrs['pairs']:,} random pairs of tokens "
            "from different sentences. Word senses: each ambiguous word in its own sentences."
        )
        presentation.table(frame_of(rows), hide_index=True, width="stretch", key="contextual.rows")
        table = measures.join(senses.add_prefix("sense_"))
        csv_download(
            st, "Numbers per layer (.csv)", table.reset_index(), "contextual.csv", "contextual.csv"
        )


def one_word(model_ref: ModelRef, rows: Rows) -> None:
    """One ambiguous word up close: its self-similarity, MEV and sense accuracy per layer
    (before any adjustment) over its own sentences, and the code that prints them."""
    st.subheader("One word up close", anchor=False)
    frame = frame_of(rows)
    words = tuple(dict.fromkeys(frame["word"]))
    word = st.selectbox(
        "Ambiguous word",
        words,
        key="contextual.word",
        bind=URL,
        help="Its sentences only, every sense: the numbers the code below prints.",
    )
    own = frame[frame["word"] == word]
    texts, senses = tuple(own["text"]), own["sense"].tolist()
    try:
        occurrences, vectors, _ = compute.word_layer_vectors(model_ref, texts, word)
    except ValueError as error:
        messages.error(error)
        return
    table = word_measures(vectors, [senses[o.text_index] for o in occurrences])
    presentation.table(
        table.assign(sense_accuracy=100 * table["sense_accuracy"]),
        column_config=WORD_COLUMNS,
        width="content",
        key="contextual.word_table",
    )
    st.caption(
        f"{len(occurrences)} sentences with “{messages.escape(word)}” "
        f"({', '.join(sorted(set(senses)))}), without the anisotropy adjustment: raw cosines "
        "and shares of variance."
    )
    if word not in load(model_ref).tokenizer.get_vocab():
        st.caption("This model splits the word into pieces: the short program needs one token.")
        return
    show_code(
        classic_snippet(model_ref, list(texts), senses, word),
        caption="Plain transformers + NumPy: the word's vectors at every layer, then the three "
        "numbers of the table above.",
    )
