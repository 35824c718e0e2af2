"""Similarity & search: sentence similarity under each pooling, and semantic search."""

from __future__ import annotations

import streamlit as st

from explorer.data import corpora, uploads
from explorer.data.examples import SIMILARITY_QUERY, SIMILARITY_SENTENCES
from explorer.layers import layer_choices
from explorer.pooling import pooling_labels
from explorer.similarity import MAX_SENTENCES, similarity_notice, spearman_agreement
from explorer.ui import compute, messages, presentation, similarity_search, sources
from explorer.ui.model_in_use import current_model
from explorer.ui.vectors import search_vectors
from explorer.ui.widgets import URL, header, layers_select, pooling_select, show_code, vector_choice

CORPORA = {"Remarks": sources.remarks()}


header("pages/similarity.py")
notice = st.container()  # what to notice, filled once the numbers are known

model = current_model()

# -- similarity under each pooling ----------------------------------------------------------
left, right = presentation.controls("similarity.settings").columns([3, 2])
text = left.text_area(
    "Sentences, one per line",
    SIMILARITY_SENTENCES,
    height=170,
    key="similarity.text",
    bind=URL,
    help=f"3 to {MAX_SENTENCES} sentences.",
)
valid_layers = layer_choices(model.num_layers)
layers = layers_select(
    right,
    "similarity.layers",
    valid_layers,
    label="Layers",
    help="Which hidden layers give the token vectors (pooled per layer, then combined). "
    "Also used by the search below.",
    old_key="similarity.strategy",
)
first = model.tokenizer.cls_token  # the menus name it as the model writes it (<s>, [CLS])
poolings = pooling_select(right, "similarity.pooling", multi=True, cls_token=first)
post = similarity_search.post_select(right)
choices = vector_choice(poolings, layers, post=post)

sentences: list[str] = []  # stays empty unless the comparison below succeeds
try:
    lines = uploads.texts_from_lines(text, None)
    if len(lines) < 3:
        raise ValueError(
            f"{len(lines)} sentence(s): compare at least 3 (one per line) so there are "
            "pairs to rank."
        )
    kept = compute.cap_tokens(model.ref, uploads.from_lists(lines))  # scaled for larger models
    if kept.note:
        messages.info(kept.note)
    lines = list(kept.data.texts)
    corpus = compute.embed_corpus(model.ref, tuple(lines))
    labels = pooling_labels(model.tokenizer.cls_token)  # the model's own first token
    matrices, rogue = similarity_search.cosines(model.ref, corpus, choices, labels)
    agreement = spearman_agreement(matrices)
except ValueError as error:
    messages.error(error)
else:
    sentences = lines
    said = similarity_notice(matrices, labels, choices[0])
    messages.info(said, notice)
    if rogue:
        messages.info(rogue)
    similarity_search.comparison(corpus, matrices, agreement, sentences, poolings, layers, labels)

# -- semantic search -------------------------------------------------------------------------
st.subheader("Semantic search")
st.markdown(
    "Embed a corpus once, then rank its texts by cosine similarity to a query, under the "
    "pooling you choose and the layers chosen above (a saved corpus: among those it keeps)."
)
row = presentation.controls("similarity.corpus_settings", "Corpus").columns([2, 3])
corpus_texts = corpus_labels = uploaded = store = None
try:
    source = sources.text_source(
        "similarity.corpus",
        CORPORA,
        paste_default="\n".join(corpora.load_topics()["text"][::30]),
        columns=row,
        label="Corpus",
        saved=True,
        vectors=True,
    )
except ValueError as error:
    messages.error(error)
else:
    if source is not None and source.store is not None:
        store = source.store  # embedded ahead of time: searched in storesearch, all rows
    elif source is not None and source.vectors is not None:
        uploaded = source.vectors  # precomputed: searched as they are, no forward pass
        if uploaded.note:
            messages.info(uploaded.note)
        corpus_texts, corpus_labels = list(uploaded.texts), uploaded.labels
    elif source is not None and source.ready:
        kept = compute.cap_tokens(model.ref, source.data)
        if kept.note:
            messages.info(kept.note)
        corpus_texts, corpus_labels = list(kept.data.texts), kept.data.labels

controls = st.columns([4, 2, 2])  # the query stays in view when presenting
k = controls[2].slider("Results (k)", 1, 20, 5, key="similarity.k", bind=URL)
results = search_code = stored = None
if store is not None:
    stored = similarity_search.store_section(store, layers, k, controls, SIMILARITY_QUERY)
    search_code = stored and stored.code
elif uploaded is None:
    query = controls[0].text_input("Query", SIMILARITY_QUERY, key="similarity.query", bind=URL)
    search_pooling = pooling_select(controls[1], "similarity.search_pooling", cls_token=first)

if corpus_texts:
    try:
        if uploaded is not None:
            results, search_code = search_vectors(
                uploaded, source.files, model, layers, k, controls, SIMILARITY_QUERY
            )
        elif not query.strip():
            raise ValueError("The query is empty: type what you are looking for.")
        else:
            results, search_code = similarity_search.search_texts(
                model.ref, corpus_texts, query.strip(), vector_choice(search_pooling, layers), k
            )
    except ValueError as error:
        messages.error(error)
searched = None  # the query and its results (a saved corpus: with the model it was embedded with)
if stored is not None:
    searched = (stored.query, stored.pooling, list(stored.texts), stored.model, stored.layers)
if results is not None:
    similarity_search.results_table(
        results, corpus_labels, len(corpus_texts), uploaded=uploaded is not None
    )
    if uploaded is None:
        searched = (query.strip(), search_pooling, results["text"].tolist())
similarity_search.why_close(model.ref, sentences, poolings, layers, searched, post)

show_code(
    *([similarity_search.snippet(model.ref, sentences, choices)] if sentences else []),
    *([search_code] if search_code else []),
    caption="Plain transformers + torch + numpy: the similarity matrices and Spearman ρ above, "
    "then the search. Each prints the numbers the page shows.",
)
