"""Which layer? A linear probe on every layer (and a CNN head on one), cross-validated."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import probing
from explorer.codegen.probe import probe_snippet
from explorer.data import export
from explorer.figures.probe import layer_accuracy_figure
from explorer.pooling import LABELS as POOLING_LABELS
from explorer.probing.scores import probe_notice
from explorer.ui import compute, messages, sources
from explorer.ui import probing as probes
from explorer.ui.model import current_model_name
from explorer.ui.widgets import (
    URL,
    csv_download,
    header,
    option_labels,
    pooling_select,
    show_code,
    subwords_select,
    vector_downloads,
)
from explorer.words import SUBWORD_LABELS

ALL_WORDS = "(all)"


header("pages/probe.py")
notice = st.container()  # what to notice, filled once the numbers are known

name = current_model_name()

# -- data ------------------------------------------------------------------------------------
top = st.columns([2, 3, 2])
try:
    chosen = sources.labelled_source("probe", top[:2])
    saved = probes.saved_rows(chosen[2], top[2]) if chosen and chosen[1] == "saved" else None
except ValueError as error:
    messages.error(error)
    st.stop()
if chosen is None:
    st.stop()
frame, task, store = chosen

if saved is not None:
    if saved.note:
        messages.info(saved.note)
    frame = pd.DataFrame({"text": saved.texts, "label": saved.labels})
elif task == "word":
    options = (ALL_WORDS, *dict.fromkeys(frame["word"].str.strip()))
    word = top[2].selectbox(
        "Word",
        options,
        format_func=option_labels(
            (w, "All words (one probe per word)" if w == ALL_WORDS else w) for w in options
        ),
        key="probe.word",
        bind=URL,
        help="Each word is probed on its own sentences, so the probe must tell the word's "
        "senses apart; with all words, the accuracy is pooled over them.",
    )
    if word != ALL_WORDS:
        frame = frame[frame["word"].str.strip() == word].reset_index(drop=True)
try:
    kept = None
    if saved is None:
        kept = probes.sample_rows(
            name,
            tuple(frame["text"]),
            tuple(frame["label"].astype(str).str.strip()),
            tuple(frame["word"].str.strip()) if task == "word" else None,
        )
except ValueError as error:
    messages.error(error)
    st.stop()
if kept and kept.note:
    messages.info(kept.note)
    frame = frame.iloc[kept.rows].reset_index(drop=True)
words = tuple(frame["word"].str.strip()) if task == "word" else None
texts = tuple(frame["text"])
labels = tuple(str(label).strip() for label in frame["label"])

settings = st.columns([1, 2])
folds = settings[0].slider(
    "Cross-validation folds",
    2,
    probing.MAX_FOLDS,
    5,
    key="probe.folds",
    bind=URL,
    help="Each fold is held out once for testing while the probe trains on the rest.",
)
data = probes.ProbeData(
    texts, labels, words, folds, store=store, rows=saved.rows if saved else None
)
try:
    plan = data.plan()
except ValueError as error:
    messages.error(error)
    st.stop()
for note in plan.notes:
    messages.info(note)

# -- strategies ------------------------------------------------------------------------------
try:
    if task == "word":
        features = probes.word_features(name, texts, words)
    elif task == "sentence":
        compute.embed_corpus(name, texts)
except ValueError as error:
    messages.error(error)
    st.stop()

if saved is not None:
    strategies, labels_for = probes.stored_poolings(settings[1], saved), POOLING_LABELS
elif task == "word":
    if features.num_split == 0:
        strategies = ["mean"]
        settings[1].caption(
            f"All {len(texts)} target words are single tokens for this model, so every "
            "subword mode gives the same vector: one line is shown."
        )
    else:
        strategies = subwords_select(
            settings[1],
            "probe.subwords",
            multi=True,
            help=f"{features.num_split} of the {len(texts)} target words are split into "
            "subwords; these modes combine them into one vector.",
        )
    labels_for = SUBWORD_LABELS
else:
    strategies = pooling_select(
        settings[1],
        "probe.poolings",
        multi=True,
        help="How a text's token vectors become one vector, at every layer.",
    )
    labels_for = POOLING_LABELS
if not strategies:
    st.info("Choose at least one strategy to probe.")
    st.stop()

scores = pd.concat(
    [probes.layer_scores(name, data, strategy) for strategy in strategies],
    ignore_index=True,
)
best = probing.best_layers(scores)
top_row = best.iloc[0]
messages.info(probe_notice(best, labels_for, "word's sense" if task == "word" else "label"), notice)

# -- results ---------------------------------------------------------------------------------
what = "word's sense" if task == "word" else "label"
probes.headline(plan.baseline, top_row, task, labels_for)
st.plotly_chart(
    layer_accuracy_figure(
        scores,
        plan.baseline,
        labels_for,
        title=f"How well a linear probe reads the {what}, layer by layer "
        f"({len(texts)} texts, {plan.folds}-fold CV)",
    ),
    width="stretch",
    key="probe.chart",
)
st.caption(
    f"Mean accuracy over {plan.folds} folds; bars show ± one standard deviation. "
    + (
        "Each word is probed on its own sentences: at layer 0 the vectors of one word differ "
        "only by position, so only context-mixing layers can separate its senses."
        if task == "word"
        else "Layer 0 is a bag of static word vectors: topics can often be read from the words "
        "alone, sentiment needs more context."
    )
    + (saved.layers_note if saved else "")
)
probes.best_table(best, labels_for)

# -- one layer: linear probe vs CNN, downloads, code -----------------------------------------
st.subheader("One layer up close" + ("" if saved else ": linear probe vs a small CNN"))
if not saved:
    st.markdown(
        "A linear probe reads one pooled vector per text. A small **1-D CNN** reads every "
        "token's vector instead, laid out as `(batch, hidden, tokens)`, with kernels sliding "
        "over neighbouring tokens: does the layer hold more than its pooled vector shows? It "
        "trains on the frozen vectors with the same folds as the probe, when you switch it on."
    )
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
strategy = pick[1].selectbox(
    "Strategy for the linear probe",
    tuple(strategies),
    index=list(strategies).index(top_row["strategy"]),
    format_func=labels_for.get,
    key="probe.strategy",
    bind=URL,
)
linear = scores[(scores["strategy"] == strategy) & (scores["layer"] == layer)].iloc[0]
if saved:
    st.caption(
        "The small 1-D CNN head of this page reads every token's vector; a saved corpus keeps "
        "one pooled vector per text and layer, so only the linear probe runs on it."
    )
else:
    probes.cnn_comparison(name, data, layer, linear, labels_for[strategy], plan.baseline, task)

vectors = probes.layer_vectors(name, data, strategy, layer)
download = export.vectors_frame(vectors, texts, labels, words)
stem = f"probe_layer{layer}_{strategy}"
buttons = st.columns(3)
vector_downloads(
    buttons,
    vectors,
    download,
    stem,
    key="probe",
    npy_label=f"Vectors of layer {layer}",
    csv_label="Vectors with text, label (.csv)",
)
csv_download(
    buttons[2], "Accuracy per layer (.csv)", scores, "probe_scores.csv", "probe.download_scores"
)

if saved:
    probes.show_saved_code(store, saved, layer, strategy, plan)
    st.stop()
spans = [(o.char_start, o.char_end) for o in features.occurrences] if task == "word" else None
show_code(
    probe_snippet(
        name, texts, labels, layer, strategy, plan.folds, plan.random_state, words, spans
    ),
    caption=f"Layer {layer}'s vectors with plain transformers + torch, then the same "
    "cross-validated probe with scikit-learn; prints the accuracy shown above.",
)
