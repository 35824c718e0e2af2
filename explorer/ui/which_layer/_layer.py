"""The Probe page's "One layer up close": the layer and strategy to look at, the linear
probe against a small 1-D CNN on that layer's token vectors (not for a saved corpus, which
keeps pooled vectors only), the layer's vectors and the scores to download, and "Show code"."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.codegen.probe import probe_snippet
from explorer.data import export
from explorer.model.ref import ModelRef
from explorer.ui.which_layer._probes import ProbeData, cnn_comparison, layer_vectors
from explorer.ui.which_layer._rows import ProbeRows
from explorer.ui.which_layer._saved import show_saved_code
from explorer.ui.widgets import (
    URL,
    choose,
    csv_download,
    option_labels,
    show_code,
    vector_downloads,
)

CNN = (
    "A linear probe reads one pooled vector per text. A small **1-D CNN** reads every "
    "token's vector instead, laid out as `(batch, hidden, tokens)`, with kernels sliding "
    "over neighbouring tokens: does the layer hold more than its pooled vector shows? It "
    "trains on the frozen vectors with the same folds as the probe, when you switch it on."
)
SAVED = (
    "The small 1-D CNN head of this page reads every token's vector; a saved corpus keeps "
    "one pooled vector per text and layer, so only the linear probe runs on it."
)


def one_layer(
    model_ref: ModelRef,
    rows: ProbeRows,
    data: ProbeData,
    plan,
    scores: pd.DataFrame,
    top_row,
    strategies,
    labels_for: dict[str, str],
    spans,
) -> None:
    """One layer of the probe of ``rows`` (``data``, folds ``plan``) by the model ``model_ref``,
    starting at the best (``top_row`` of ``scores``) among ``strategies``; ``spans`` are the
    target words' characters for a word task's "Show code"."""
    saved = rows.saved
    st.subheader("One layer up close" + ("" if saved else ": linear probe vs a small CNN"))
    if not saved:
        st.markdown(CNN)
    pick = st.columns(2)
    layers = tuple(int(k) for k in sorted(scores["layer"].unique()))
    layer = pick[0].selectbox(
        "Layer",
        layers,
        index=layers.index(int(top_row["layer"])),
        format_func=option_labels((k, f"{k} (embeddings)" if k == 0 else str(k)) for k in layers),
        key="probe.layer",
        bind=URL,
    )
    strategy = choose(
        pick[1],
        "Features for the linear probe",
        strategies,
        labels_for.get,
        "probe.features",
        top_row["features"],
        old_key="probe.strategy",  # links made before the rename
    )
    linear = scores[(scores["features"] == strategy) & (scores["layer"] == layer)].iloc[0]
    if saved:
        st.caption(SAVED)
    else:
        cnn_comparison(
            model_ref, data, layer, linear, labels_for[strategy], plan.baseline, rows.task
        )

    vectors = layer_vectors(model_ref, data, data.choice(strategy), layer)
    download = export.vectors_frame(vectors, rows.texts, rows.labels, rows.words)
    buttons = st.columns(3)
    vector_downloads(
        buttons,
        vectors,
        download,
        f"probe_layer{layer}_{strategy}",
        key="probe",
        npy_label=f"Vectors of layer {layer}",
        csv_label="Vectors with text, label (.csv)",
    )
    csv_download(
        buttons[2], "Accuracy per layer (.csv)", scores, "probe_scores.csv", "probe.download_scores"
    )
    if saved:
        show_saved_code(rows.store, saved, layer, strategy, plan)
        return
    show_code(
        probe_snippet(
            model_ref,
            rows.texts,
            rows.labels,
            layer,
            strategy,
            plan.folds,
            plan.random_state,
            rows.words,
            spans,
        ),
        caption="Every layer's vectors with plain transformers + torch, then the same "
        "cross-validated probe on each with scikit-learn; prints the headline's numbers and "
        f"layer {layer}'s folds.",
        data=_data(rows, spans),
    )


def _data(rows: ProbeRows, spans) -> tuple[str, bytes] | None:
    """The data file the probe's program reads (many rows), or None (written out)."""
    from explorer.codegen.probe import DATA_FILE, probe_data

    data = probe_data(rows.texts, rows.labels, rows.words, spans)
    return None if data is None else (DATA_FILE, data)
