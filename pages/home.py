"""Home: what contextual embeddings are, and a card for every page of the explorer."""

from __future__ import annotations

import streamlit as st

from explorer import cache
from explorer.backend import DEFAULT_MODEL

cache.require_router()

CARDS = (
    (
        "pages/tokens.py",
        "Tokens",
        ":material/text_fields:",
        "How the tokenizer cuts your text into word pieces (*embeddings* becomes "
        "`em ##bed ##ding ##s`), with ids, segment ids and character offsets.",
    ),
    (
        "pages/layers.py",
        "Layers",
        ":material/stacks:",
        "Each token's vector at every layer: value distributions, per-layer statistics, "
        "the few outlier ('rogue') dimensions and vector norms.",
    ),
    (
        "pages/context.py",
        "Word in context",
        ":material/compare_arrows:",
        "One word in many sentences: how similar are the vectors of *bank* by the river and "
        "*bank* with a vault, layer by layer?",
    ),
    (
        "pages/projections.py",
        "Projections",
        ":material/scatter_plot:",
        "Whole sentences or word occurrences as points in 2-D (PCA, t-SNE, UMAP), coloured "
        "by sense or topic, to see what clusters.",
    ),
    (
        "pages/probe.py",
        "Which layer?",
        ":material/science:",
        "Train a small linear probe on every layer to see where word senses or topics "
        "become easy to tell apart.",
    ),
    (
        "pages/similarity.py",
        "Similarity & search",
        ":material/search:",
        "Compare sentences by cosine similarity and search a small collection by meaning.",
    ),
)

st.title("Contextual Embedding Explorer")
st.markdown(
    "A static embedding such as word2vec gives a word one vector, whatever sentence it "
    "appears in. A transformer encoder like BERT rewrites the vector of every token, layer "
    "by layer, using the whole sentence around it, so *bank* in “river bank” and in "
    "“bank vault” ends up with different vectors. This app lets you look at each step, "
    "from the tokens the model reads to the vectors its last layer gives out."
)
st.info(
    f"The bundled model, **{DEFAULT_MODEL}** (a small 6-layer BERT), works offline. Pick "
    "another encoder in the sidebar if it is in your Hugging Face cache or a local folder.",
    icon=":material/info:",
)

columns = st.columns(2)
for index, (page, title, icon, blurb) in enumerate(CARDS):
    with columns[index % 2].container(border=True):
        st.markdown(f"#### {title}")
        st.markdown(blurb)
        st.page_link(page, label=f"Open {title}", icon=icon)

st.caption(
    "Every page starts with a built-in example and has a **Show code** box with a short "
    "transformers program that prints the same numbers."
)
