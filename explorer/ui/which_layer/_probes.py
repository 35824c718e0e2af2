"""Cached probes of the "Which layer?" page: where the labelled texts come from (a built-in
set, an uploaded CSV or a saved corpus), features, per-layer scores, the CNN head."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

import explorer.probing.features
import explorer.probing.heads
from explorer.choice import VectorChoice
from explorer.model.ref import ModelRef
from explorer.probing.features import MAX_TOKENS, token_sequences
from explorer.probing.folds import plan_folds
from explorer.probing.sample import ProbeSample, probe_sample
from explorer.probing.scores import score_layers
from explorer.probing.stored import stored_stack
from explorer.server import limits
from explorer.ui import presentation
from explorer.ui.compute import (
    cached,
    embed_corpus,
    heavy_points,
    heavy_texts,
    open_store,
)
from explorer.ui.model_in_use import load
from explorer.ui.progress import progress_bar
from explorer.ui.widgets import URL


@dataclass(frozen=True)
class ProbeData:
    """What is probed: ``texts`` with ``labels``; ``words`` (one per text) for word-level
    probes, None for sentence-level ones. Folds are stratified with ``random_state``.

    For a saved corpus, ``store`` is its folder and ``rows`` the store rows of ``texts``: the
    features are its stored vectors, read with no forward pass (and no model)."""

    texts: tuple[str, ...]
    labels: tuple[str, ...]
    words: tuple[str, ...] | None = None
    folds: int = 5
    random_state: int = 0
    store: str | None = None
    rows: tuple[int, ...] | None = None

    def plan(self):
        """The cross-validation plan (:func:`explorer.probing.folds.plan_folds`, identical texts
        in one fold); for texts the model reads, the folds are lowered when many rows would
        take too long (:func:`explorer.server.limits.probe_folds`)."""
        folds, note = self.folds, None
        if self.store is None:
            folds, note = limits.probe_folds(len(self.texts), self.folds)
        plan = plan_folds(self.labels, self.words, folds, self.random_state, texts=self.texts)
        return plan if note is None else replace(plan, notes=(note, *plan.notes))

    def choice(self, features: str) -> VectorChoice:
        """The :class:`explorer.VectorChoice` a probe of these rows reads for ``features``: a
        subword mode for a word probe, a pooling for a sentence probe (every layer)."""
        return VectorChoice(subwords=features) if self.words is not None else VectorChoice(features)

    def features(self, choice: VectorChoice) -> str:
        """What the probe varies in ``choice``, as the scores' ``features`` column names it:
        its subword mode for a word probe, its pooling for a sentence probe."""
        return choice.subwords if self.words is not None else choice.pooling


def sample_rows(
    model_ref: ModelRef,
    texts: tuple[str, ...],
    labels: tuple[str, ...],
    words: tuple[str, ...] | None,
) -> ProbeSample:
    """Cached :func:`explorer.probing.sample.probe_sample`: the rows one request probes (at most
    :data:`explorer.server.limits.MAX_PROBE_TEXTS` texts and
    :data:`~explorer.server.limits.MAX_PROBE_TOKENS` tokens, a stratified random sample beyond)."""
    return cached(
        "states",
        ("probe sample", model_ref, texts, labels, words),
        lambda: probe_sample(
            load(model_ref), texts, labels, words, **limits.probe_caps(load(model_ref))
        ),
        "Choosing the rows to probe…",
    )


def word_features(model_ref: ModelRef, texts: tuple[str, ...], words: tuple[str, ...]):
    """Cached :func:`explorer.probing.features.word_features` (every subword mode, one forward
    pass), with a progress bar."""

    def compute():
        with progress_bar("Running the model…") as report:
            return explorer.probing.features.word_features(
                load(model_ref), texts, words, progress=report
            )

    return cached(
        "probes", ("features", model_ref, texts, words), compute, heavy=heavy_texts(texts)
    )


def _stack(
    model_ref: ModelRef, data: ProbeData, choice: VectorChoice
) -> tuple[tuple[int, ...] | None, np.ndarray]:
    """``(layer numbers or None for 0 … L, (layers, n, d) features)`` of ``data``."""
    if data.store is not None:
        return stored_stack(open_store(data.store), choice.pooling, data.rows)
    if data.words is None:
        return None, embed_corpus(model_ref, data.texts).per_layer(choice)
    return None, word_features(model_ref, data.texts, data.words).vectors[choice.subwords]


def layer_scores(model_ref: ModelRef, data: ProbeData, choice: VectorChoice) -> pd.DataFrame:
    """Cached :func:`explorer.probing.scores.score_layers` under ``choice`` at every layer: its
    pooling (sentence probes and saved corpora) or subword mode (word probes; one probe per
    word), with a progress bar, and the control task beside it (``control_mean``,
    ``selectivity``); ``features`` names what varies (:meth:`ProbeData.features`). Features
    come from the cached forward pass or the store, so a new choice or fold count runs no
    model. ``layer`` holds the real layer numbers (a store may keep only some)."""
    features = data.features(choice)

    def compute() -> pd.DataFrame:
        layers, stack = _stack(model_ref, data, choice)
        with progress_bar(
            f"Probing every layer and its control task ({features})… layer"
        ) as report:
            scores = score_layers(stack, data.plan(), report, layers=layers, control=True)
            return scores.assign(features=features)

    model = None if data.store is not None else model_ref  # a store needs no model
    return cached("probes", ("scores", model, data, choice), compute, heavy=_heavy(data)).copy()


def layer_vectors(
    model_ref: ModelRef, data: ProbeData, choice: VectorChoice, layer: int
) -> np.ndarray:
    """``(n, d)`` float32 features of ``data`` at layer ``layer`` under ``choice`` (what the
    probe of that layer reads)."""
    if data.store is not None:
        rows = np.array(data.rows)
        return open_store(data.store).sentence(choice.replace(layers=int(layer)), rows=rows)
    return _stack(model_ref, data, choice)[1][layer]


def cnn_scores(model_ref: ModelRef, data: ProbeData, layer: int) -> pd.DataFrame:
    """Cached :func:`explorer.probing.heads.cnn_scores` on layer ``layer``'s token sequences (one
    forward pass, not cached itself: it is ``texts x tokens x hidden``), with progress bars."""

    def compute() -> pd.DataFrame:
        with progress_bar("Token vectors for the CNN…") as report:
            sequences, mask = token_sequences(
                load(model_ref), data.texts, layer, report, max_values=limits.MAX_CNN_VALUES
            )
        with progress_bar("Training the CNN head… epoch") as report:
            return explorer.probing.heads.cnn_scores(sequences, mask, data.plan(), report)

    return cached("probes", ("cnn", model_ref, data, layer), compute, heavy=_heavy(data)).copy()


def _heavy(data: ProbeData) -> bool:
    """Whether probing ``data`` (with the forward pass it may need) is heavy work."""
    return heavy_points(len(data.labels)) or (data.store is None and heavy_texts(data.texts))


def cnn_comparison(
    model_ref: ModelRef,
    data: ProbeData,
    layer: int,
    linear: pd.Series,
    strategy_label: str,
    baseline: float,
    task: str,
) -> None:
    """The small CNN head on layer ``layer`` beside the linear probe's ``linear`` score row (a
    bar chart and what it means), or a warning when the CNN cannot run. It trains only when the
    "probe.cnn" toggle is on (bound to the link): its own forward pass and training would
    double the time of a large request."""
    from explorer.figures.probe import head_comparison_figure, head_notice
    from explorer.ui import messages

    if not st.toggle(
        "Train the 1-D CNN on this layer",
        value=False,
        key="probe.cnn",
        bind=URL,
        help="Runs the model again for the token vectors of this layer (each text's first "
        f"{MAX_TOKENS} tokens) and trains the CNN on the same folds as the probe: a few seconds "
        "for the built-in sets, up to about half a minute for the largest uploads.",
    ):
        return
    try:
        cnn = cnn_scores(model_ref, data, layer).iloc[0]
    except ValueError as error:
        messages.warning(error)
        return
    heads = pd.DataFrame(
        {
            "head": [f"Linear probe ({strategy_label.lower()})", "1-D CNN over tokens"],
            "accuracy_mean": [linear["accuracy_mean"], cnn["accuracy_mean"]],
            "accuracy_std": [linear["accuracy_std"], cnn["accuracy_std"]],
        }
    )
    messages.info(head_notice(heads, layer))
    st.plotly_chart(
        head_comparison_figure(heads, baseline, title=f"Layer {layer}: two heads"),
        width="stretch",
        key="probe.heads",
    )
    st.caption(
        "The CNN reads every token of the text at this layer, not just one pooled vector"
        + (
            " or the target word: even at layer 0 it can use context words such as *river* "
            "or *money*, which the probe on the word's own vector cannot see."
            if task == "word"
            else "; it can pick up short phrases that pooling averages away."
        )
    )


def headline(baseline: float, top_row, task: str, labels: dict[str, str]) -> None:
    """Three metrics above the probe chart: the majority baseline, layer 0, the best layer."""
    metrics = st.columns(3)
    metrics[0].metric(
        "Majority baseline",
        f"{baseline:.2f}",
        help="Accuracy of always guessing the most common label"
        + (" of each word." if task == "word" else "."),
    )
    embedding = top_row["embedding_layer"]
    stored = not np.isnan(embedding)
    metrics[1].metric(
        "Embedding layer (0)",
        f"{embedding:.2f}" if stored else "not stored",
        delta=f"{embedding - baseline:+.2f} vs baseline" if stored else None,
        delta_color="off",
        help="Layer 0 is the input embedding (token + position), before any attention."
        + ("" if stored else " This saved corpus does not keep it (explorer embed --layers)."),
    )
    band = top_row["within_noise"]
    metrics[2].metric(
        f"Best: layer{'s' if '–' in band or ',' in band else ''} {band}",
        f"{top_row['accuracy_mean']:.2f} ± {top_row['accuracy_std']:.2f}",
        delta=f"{top_row['accuracy_mean'] - baseline:+.2f} vs baseline",
        help=f"With {labels.get(top_row['features'], top_row['features']).lower()}. Layer "
        f"{int(top_row['layer'])} scored highest; layers whose accuracy is within one standard "
        "deviation of it cannot be told apart (which one comes out on top changes between "
        "runs), so the page names them all.",
    )


def best_table(best: pd.DataFrame, labels: dict[str, str]) -> None:
    """The best layer of every pooling or subword mode (from
    :func:`explorer.probing.scores.best_layers`), as a table."""
    number = st.column_config.NumberColumn
    presentation.table(
        best.assign(features=best["features"].map(lambda s: labels.get(s, s))),
        hide_index=True,
        width="stretch",
        column_config={
            "features": "Features",
            "layer": number("Best layer", format="%d"),
            "within_noise": st.column_config.TextColumn(
                "Within noise", help="Layers within one standard deviation of the best"
            ),
            "accuracy_mean": number("Accuracy", format="%.3f"),
            "accuracy_std": number("± std", format="%.3f"),
            "embedding_layer": number("Layer 0", format="%.3f"),
            "baseline": number("Baseline", format="%.3f"),
            "control_mean": number("Control task", format="%.3f"),
            "selectivity": number(
                "Selectivity", format="%+.3f", help="Accuracy minus control-task accuracy"
            ),
        },
        key="probe.best",
    )
