"""Which layer? A linear probe on every layer (and a CNN head on one), cross-validated."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import corpora, export, probing, uploads
from explorer.codegen.probe import probe_snippet
from explorer.figures.probe import head_comparison_figure, layer_accuracy_figure
from explorer.pooling import LABELS as POOLING_LABELS
from explorer.pooling import POOLINGS
from explorer.ui import compute, messages
from explorer.ui import probing as probes
from explorer.ui.model import current_model_name
from explorer.ui.navigation import leave_legacy_pages_mode
from explorer.ui.widgets import URL, show_code, vector_downloads
from explorer.words import SUBWORD_MODES

SOURCES = {"builtin": "Built-in example", "upload": "Upload a CSV"}
DATASETS = {
    "senses": "Word senses (token level)",
    "topics": "Topics (sentence level)",
    "sentiment": "Sentiment (sentence level)",
}
DATASET_NAMES = {
    "senses": "Word senses (all words)",
    "topics": "Topics",
    "sentiment": "Sentiment",
}
ALL_WORDS = "(all)"
SUBWORD_LABELS = {
    "first": "First subword",
    "last": "Last subword",
    "mean": "Mean of subwords",
    "max": "Max over subwords",
    "sum": "Sum of subwords",
}

leave_legacy_pages_mode()

st.title("Which layer?")
st.markdown(
    "Where in the network does the model know a word's **sense**, a text's **topic** or its "
    "**sentiment**? A *probe* is a simple linear classifier (logistic regression) trained on "
    "one layer's vectors; if it predicts the label well on texts it has not seen, the label "
    "can be read off that layer. Every layer is probed with the same stratified "
    "cross-validation folds, and the dashed line is what always guessing the most common "
    "label scores."
)

name = current_model_name()

# -- data ------------------------------------------------------------------------------------
top = st.columns([2, 3, 2])
source = top[0].radio("Data", tuple(SOURCES), format_func=SOURCES.get, key="probe.source", bind=URL)
if source == "builtin":
    dataset = top[1].selectbox(
        "Example set",
        tuple(DATASETS),
        format_func=DATASETS.get,
        key="probe.dataset",
        bind=URL,
        help="Word senses: sentences using bank, bat, bark, crane, spring, match, mouse and "
        "plant, labelled by sense. Topics and sentiment: 240 short remarks.",
    )
    frame = corpora.load_dataset(DATASET_NAMES[dataset])
    task = "word" if "word" in frame.columns else "sentence"
else:
    uploaded = top[1].file_uploader(
        "CSV with columns text,label (sentences) or text,word,label (word senses)",
        type=["csv"],
        key="probe.upload",
        help=f"UTF-8, a header row, at most {probing.MAX_ROWS:,} rows.",
    )
    if uploaded is None:
        st.info(
            "Upload a CSV file: `text,label` to probe sentences (e.g. topic or sentiment), or "
            "`text,word,label` to probe the vector of `word` in each text (e.g. its sense)."
        )
        st.stop()
    try:
        frame, task = probing.read_labelled_csv(uploaded.getvalue())
    except ValueError as error:
        messages.error(error)
        st.stop()

if task == "word":
    options = (ALL_WORDS, *dict.fromkeys(frame["word"].str.strip()))
    word = top[2].selectbox(
        "Word",
        options,
        format_func=lambda w: "All words (one probe per word)" if w == ALL_WORDS else w,
        key="probe.word",
        bind=URL,
        help="Each word is probed on its own sentences, so the probe must tell the word's "
        "senses apart; with all words, the accuracy is pooled over them.",
    )
    if word != ALL_WORDS:
        frame = frame[frame["word"].str.strip() == word].reset_index(drop=True)
try:
    kept = compute.cap_tokens(name, uploads.from_lists(tuple(frame["text"])))
except ValueError as error:
    messages.error(error)
    st.stop()
if kept.note:
    messages.info(kept.note)
    frame = frame.iloc[: len(kept.data)]
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
data = probes.ProbeData(texts, labels, words, folds)
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
    else:
        corpus = compute.embed_corpus(name, texts)
except ValueError as error:
    messages.error(error)
    st.stop()

if task == "word":
    if features.num_split == 0:
        strategies = ["mean"]
        settings[1].caption(
            f"All {len(texts)} target words are single tokens for this model, so every "
            "subword mode gives the same vector: one line is shown."
        )
    else:
        strategies = settings[1].multiselect(
            "Subword modes",
            SUBWORD_MODES,
            default=["first", "mean", "max"],
            format_func=SUBWORD_LABELS.get,
            key="probe.subwords",
            bind=URL,
            help=f"{features.num_split} of the {len(texts)} target words are split into "
            "subwords; these modes combine them into one vector.",
        )
    labels_for = SUBWORD_LABELS
else:
    strategies = settings[1].multiselect(
        "Poolings",
        POOLINGS,
        default=list(POOLINGS),
        format_func=POOLING_LABELS.get,
        key="probe.poolings",
        bind=URL,
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
first_line = scores[scores["strategy"] == top_row["strategy"]]

# -- results ---------------------------------------------------------------------------------
what = "word's sense" if task == "word" else "label"
metrics = st.columns(3)
metrics[0].metric(
    "Majority baseline",
    f"{plan.baseline:.2f}",
    help="Accuracy of always guessing the most common label"
    + (" of each word." if task == "word" else "."),
)
metrics[1].metric(
    "Embedding layer (0)",
    f"{top_row['embedding_layer']:.2f}",
    delta=f"{top_row['embedding_layer'] - plan.baseline:+.2f} vs baseline",
    delta_color="off",
    help="Layer 0 is the input embedding (token + position), before any attention.",
)
metrics[2].metric(
    f"Best: layer {int(top_row['layer'])}",
    f"{top_row['accuracy_mean']:.2f} ± {top_row['accuracy_std']:.2f}",
    delta=f"{top_row['accuracy_mean'] - plan.baseline:+.2f} vs baseline",
    help=f"With {labels_for.get(top_row['strategy'], top_row['strategy']).lower()}.",
)
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
)
table = best.assign(strategy=best["strategy"].map(lambda s: labels_for.get(s, s)))
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={
        "strategy": "Strategy",
        "layer": st.column_config.NumberColumn("Best layer", format="%d"),
        "accuracy_mean": st.column_config.NumberColumn("Accuracy", format="%.3f"),
        "accuracy_std": st.column_config.NumberColumn("± std", format="%.3f"),
        "embedding_layer": st.column_config.NumberColumn("Layer 0", format="%.3f"),
        "baseline": st.column_config.NumberColumn("Baseline", format="%.3f"),
    },
    key="probe.best",
)

# -- one layer: linear probe vs CNN, downloads, code -----------------------------------------
st.subheader("One layer up close: linear probe vs a small CNN")
st.markdown(
    "The tutorials also feed a layer's output to a small **1-D CNN**: the token vectors of a "
    "text, laid out as `(batch, hidden, tokens)`, with kernels sliding over neighbouring "
    "tokens. Here it trains on frozen features with the same folds as the probe."
)
choose = st.columns(2)
num_layers = int(scores["layer"].max())
layer = choose[0].selectbox(
    "Layer",
    tuple(range(num_layers + 1)),
    index=int(top_row["layer"]),
    format_func=lambda k: f"{k} (embeddings)" if k == 0 else str(k),
    key="probe.layer",
    bind=URL,
)
strategy = choose[1].selectbox(
    "Strategy for the linear probe",
    tuple(strategies),
    index=list(strategies).index(top_row["strategy"]),
    format_func=labels_for.get,
    key="probe.strategy",
    bind=URL,
)
linear = scores[(scores["strategy"] == strategy) & (scores["layer"] == layer)].iloc[0]
try:
    cnn = probes.cnn_scores(name, data, layer).iloc[0]
except ValueError as error:
    messages.warning(error)
    cnn = None
if cnn is not None:
    heads = pd.DataFrame(
        {
            "head": [f"Linear probe ({labels_for[strategy].lower()})", "1-D CNN over tokens"],
            "accuracy_mean": [linear["accuracy_mean"], cnn["accuracy_mean"]],
            "accuracy_std": [linear["accuracy_std"], cnn["accuracy_std"]],
        }
    )
    st.plotly_chart(
        head_comparison_figure(heads, plan.baseline, title=f"Layer {layer}: two heads"),
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

if task == "word":
    vectors = features.vectors[strategy][layer]
else:
    vectors = corpus.per_layer(strategy)[layer]
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
buttons[2].download_button(
    "Accuracy per layer (.csv)",
    export.to_csv_bytes(scores),
    file_name="probe_scores.csv",
    mime="text/csv",
    on_click="ignore",
    key="probe.download_scores",
)

spans = [(o.char_start, o.char_end) for o in features.occurrences] if task == "word" else None
show_code(
    probe_snippet(
        name, texts, labels, layer, strategy, plan.folds, plan.random_state, words, spans
    ),
    caption=f"Layer {layer}'s vectors with plain transformers + torch, then the same "
    "cross-validated probe with scikit-learn; prints the accuracy shown above.",
)
