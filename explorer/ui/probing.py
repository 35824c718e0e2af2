"""Cached probes of the "Which layer?" page: features, per-layer scores, the CNN head."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from explorer.probing.features import token_sequences
from explorer.probing.features import word_features as features
from explorer.probing.folds import plan_folds
from explorer.probing.heads import cnn_scores as scores
from explorer.probing.scores import score_layers
from explorer.ui.compute import cached, embed_corpus
from explorer.ui.model import load
from explorer.ui.progress import progress_bar


@dataclass(frozen=True)
class ProbeData:
    """What is probed: ``texts`` with ``labels``; ``words`` (one per text) for word-level
    probes, None for sentence-level ones. Folds are stratified with ``random_state``."""

    texts: tuple[str, ...]
    labels: tuple[str, ...]
    words: tuple[str, ...] | None = None
    folds: int = 5
    random_state: int = 0

    def plan(self):
        """The cross-validation plan (:func:`explorer.probing.folds.plan_folds`)."""
        return plan_folds(self.labels, self.words, self.folds, self.random_state)


def word_features(model_name: str, texts: tuple[str, ...], words: tuple[str, ...]):
    """Cached :func:`explorer.probing.features.word_features` (every subword mode, one forward
    pass), with a progress bar."""

    def compute():
        with progress_bar("Running the model…") as report:
            return features(load(model_name), texts, words, progress=report)

    return cached("probes", ("features", model_name, texts, words), compute)


def _stack(model_name: str, data: ProbeData, strategy: str) -> np.ndarray:
    if data.words is None:
        return embed_corpus(model_name, data.texts).per_layer(strategy)
    return word_features(model_name, data.texts, data.words).vectors[strategy]


def layer_scores(model_name: str, data: ProbeData, strategy: str) -> pd.DataFrame:
    """Cached :func:`explorer.probing.scores.score_layers` for one pooling (sentence probes) or
    subword mode (word probes; one probe per word), with a progress bar. Features come from the
    cached forward pass, so a new strategy or fold count runs no model."""

    def compute() -> pd.DataFrame:
        stack = _stack(model_name, data, strategy)
        with progress_bar(f"Probing every layer ({strategy})… layer") as report:
            return score_layers(stack, data.plan(), report).assign(strategy=strategy)

    return cached("probes", ("scores", model_name, data, strategy), compute).copy()


def cnn_scores(model_name: str, data: ProbeData, layer: int) -> pd.DataFrame:
    """Cached :func:`explorer.probing.heads.cnn_scores` on layer ``layer``'s token sequences (one
    forward pass, not cached itself: it is ``texts x tokens x hidden``), with progress bars."""

    def compute() -> pd.DataFrame:
        with progress_bar("Token vectors for the CNN…") as report:
            sequences, mask = token_sequences(load(model_name), data.texts, layer, report)
        with progress_bar("Training the CNN head… epoch") as report:
            return scores(sequences, mask, data.plan(), report)

    return cached("probes", ("cnn", model_name, data, layer), compute).copy()


def headline(baseline: float, top_row, task: str, labels: dict[str, str]) -> None:
    """Three metrics above the probe chart: the majority baseline, layer 0, the best layer."""
    metrics = st.columns(3)
    metrics[0].metric(
        "Majority baseline",
        f"{baseline:.2f}",
        help="Accuracy of always guessing the most common label"
        + (" of each word." if task == "word" else "."),
    )
    metrics[1].metric(
        "Embedding layer (0)",
        f"{top_row['embedding_layer']:.2f}",
        delta=f"{top_row['embedding_layer'] - baseline:+.2f} vs baseline",
        delta_color="off",
        help="Layer 0 is the input embedding (token + position), before any attention.",
    )
    band = top_row["within_noise"]
    metrics[2].metric(
        f"Best: layer{'s' if '–' in band or ',' in band else ''} {band}",
        f"{top_row['accuracy_mean']:.2f} ± {top_row['accuracy_std']:.2f}",
        delta=f"{top_row['accuracy_mean'] - baseline:+.2f} vs baseline",
        help=f"With {labels.get(top_row['strategy'], top_row['strategy']).lower()}. Layer "
        f"{int(top_row['layer'])} scored highest; layers whose accuracy is within one standard "
        "deviation of it cannot be told apart (which one comes out on top changes between "
        "runs), so the page names them all.",
    )


def best_table(best: pd.DataFrame, labels: dict[str, str]) -> None:
    """The best layer of every pooling or subword mode (from
    :func:`explorer.probing.scores.best_layers`), as a table."""
    number = st.column_config.NumberColumn
    st.dataframe(
        best.assign(strategy=best["strategy"].map(lambda s: labels.get(s, s))),
        hide_index=True,
        width="stretch",
        column_config={
            "strategy": "Strategy",
            "layer": number("Best layer", format="%d"),
            "within_noise": st.column_config.TextColumn(
                "Within noise", help="Layers within one standard deviation of the best"
            ),
            "accuracy_mean": number("Accuracy", format="%.3f"),
            "accuracy_std": number("± std", format="%.3f"),
            "embedding_layer": number("Layer 0", format="%.3f"),
            "baseline": number("Baseline", format="%.3f"),
        },
        key="probe.best",
    )
