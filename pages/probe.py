"""Which layer? A linear probe on every layer (and a CNN head on one), cross-validated."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import probing
from explorer.figures.probe import layer_accuracy_figure
from explorer.pooling import pooling_labels
from explorer.probing.control import control_notice
from explorer.probing.scores import probe_notice
from explorer.subwords import SUBWORD_LABELS
from explorer.ui import compute, messages, presentation, which_layer
from explorer.ui.model_in_use import current_model
from explorer.ui.widgets import URL, header, pooling_select, subwords_select

header("pages/probe.py")
notice = st.container()  # what to notice, filled once the numbers are known

model = current_model()

# -- data ------------------------------------------------------------------------------------
controls = presentation.controls("probe.settings")
rows = which_layer.probe_rows(model.ref, controls.columns([2, 3, 2]))
task, saved, store = rows.task, rows.saved, rows.store
texts, labels, words = rows.texts, rows.labels, rows.words

settings = controls.columns([1, 2])
folds = settings[0].slider(
    "Cross-validation folds",
    2,
    probing.MAX_FOLDS,
    5,
    key="probe.folds",
    bind=URL,
    help="Each fold is held out once for testing while the probe trains on the rest.",
)
data = which_layer.ProbeData(
    texts, labels, words, folds, store=store, rows=saved.rows if saved else None
)
try:
    plan = data.plan()
except ValueError as error:
    messages.error(error)
    st.stop()
for note in plan.notes:
    messages.info(note)

# -- what is probed: poolings or subword modes, each one VectorChoice --------------------------
try:
    if task == "word":
        features = which_layer.word_features(model.ref, texts, words)
    elif task == "sentence":
        compute.embed_corpus(model.ref, texts)
except ValueError as error:
    messages.error(error)
    st.stop()

if saved is not None:
    probed = which_layer.stored_poolings(settings[1], saved)
    labels_for = pooling_labels(saved.first)  # the store's model's first token
elif task == "word":
    if features.num_split == 0:
        probed = ["mean"]
        settings[1].caption(
            f"All {len(texts)} target words are single tokens for this model, so every "
            "subword mode gives the same vector: one line is shown."
        )
    else:
        probed = subwords_select(
            settings[1],
            "probe.subwords",
            multi=True,
            help=f"{features.num_split} of the {len(texts)} target words are split into "
            "subwords; these modes combine them into one vector.",
        )
    labels_for = SUBWORD_LABELS
else:
    probed = pooling_select(
        settings[1],
        "probe.poolings",
        multi=True,
        help="How a text's token vectors become one vector, at every layer.",
        cls_token=model.tokenizer.cls_token,  # "<s> token" for MPNet/RoBERTa
    )
    labels_for = pooling_labels(model.tokenizer.cls_token)  # the model's own token
if not probed:
    st.info("Choose at least one pooling or subword mode to probe.")
    st.stop()

scores = pd.concat(
    [which_layer.layer_scores(model.ref, data, data.choice(name)) for name in probed],
    ignore_index=True,
)
best = probing.best_layers(scores)
top_row = best.iloc[0]
chosen = scores[scores["features"] == top_row["features"]]
messages.info(
    probe_notice(best, labels_for, "word's sense" if task == "word" else "label")
    + " "
    + control_notice(chosen, labels_for.get(top_row["features"], top_row["features"])),
    notice,
)

# -- results ---------------------------------------------------------------------------------
what = "word's sense" if task == "word" else "label"
which_layer.headline(plan.baseline, top_row, task, labels_for)
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
    f"Mean accuracy over {plan.folds} folds; bars show ± one standard deviation. Dotted: the "
    "same probe on a control task (each text a random label, the same wherever it repeats, "
    "with the real labels' distribution; Hewitt and Liang 2019); below, selectivity = "
    "accuracy − control accuracy. Identical texts (ignoring case and spacing) are always in "
    "the same fold"
    + (f" ({plan.duplicates:,} rows repeat a text)" if plan.duplicates else ": none repeats")
    + ". "
    + (
        "Each word is probed on its own sentences: at layer 0 the vectors of one word differ "
        "only by position, so only context-mixing layers can separate its senses."
        if task == "word"
        else "Layer 0 is a bag of static word vectors: topics can often be read from the words "
        "alone, sentiment needs more context."
    )
    + (saved.layers_note if saved else "")
)
which_layer.best_table(best, labels_for)

# -- one layer: linear probe vs CNN, downloads, code -----------------------------------------
spans = [(o.char_start, o.char_end) for o in features.occurrences] if task == "word" else None
which_layer.one_layer(model.ref, rows, data, plan, scores, top_row, probed, labels_for, spans)
