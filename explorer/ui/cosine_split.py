""" "Why are these two close?": the cosine of two texts split into token pairs (or, for [CLS]
pooling, attributed to each text's tokens), shown the same way on every page that asks it
(Similarity & search, the Projections neighbour panel). The split is
:func:`explorer.explain_similarity`'s; the figure, the shaded tokens and the notice are
:mod:`explorer.figures.explain`'s and :mod:`explorer.figures.explain_notices`'s."""

from __future__ import annotations

import streamlit as st

from explorer.codegen.explain import explain_snippet
from explorer.explain import Explanation, explain_similarity
from explorer.figures.explain import pair_heatmap, shaded_tokens_html
from explorer.figures.explain_notices import explanation_notice
from explorer.layers import Layers, layers_label
from explorer.model.ref import ModelRef
from explorer.pooling import pooling_labels
from explorer.server import limits
from explorer.ui import compute, messages
from explorer.ui.model_in_use import load
from explorer.ui.progress import progress_bar
from explorer.ui.widgets import show_code

TOP_PAIRS = 3
"""Pairs (or, for [CLS] pooling, tokens of each text) listed in words."""


def _key(model_ref: ModelRef, text_a: str, text_b: str, pooling: str, layers, exclude: bool):
    return ("explain", model_ref, text_a, text_b, pooling, layers, exclude)


def explanation(
    model_ref: ModelRef,
    text_a: str,
    text_b: str,
    pooling: str,
    layers: Layers,
    exclude_special: bool = False,
) -> Explanation:
    """Cached :func:`explorer.explain_similarity`. The exact splits (one forward pass of the
    two texts) run in the light lane unless the texts are long; [CLS] pooling's integrated
    gradients (hundreds of forward and backward passes) run in the heavy lane with a progress
    bar, within :func:`explorer.server.limits.check_attribution`'s cap (``ValueError``)."""
    model = load(model_ref)
    cls = pooling == "cls"
    if cls:
        limits.check_attribution(model, [len(model.tokenize(t)) for t in (text_a, text_b)])

    def compute_it() -> Explanation:
        if not cls:
            return explain_similarity(
                model, text_a, text_b, pooling, layers, exclude_special=exclude_special
            )
        with progress_bar("Integrated gradients: running the model forward and back…") as step:
            return explain_similarity(
                model, text_a, text_b, pooling, layers, exclude_special=exclude_special, report=step
            )

    return compute.cached(
        "states",
        _key(model_ref, text_a, text_b, pooling, layers, exclude_special),
        compute_it,
        None if cls else "Splitting the cosine…",
        heavy=cls or compute.heavy_texts((text_a, text_b)),
    )


def is_cached(model_ref, text_a, text_b, pooling, layers, exclude_special=False) -> bool:
    """Whether this explanation is in the shared cache (shown without asking again)."""
    key = _key(model_ref, text_a, text_b, pooling, layers, exclude_special)
    return key in compute.BUDGETS["states"]


def why_close(
    model_ref: ModelRef,
    text_a: str,
    text_b: str,
    pooling: str,
    layers: Layers,
    key: str,
    *,
    names: tuple[str, str] = ("First text", "Second text"),
    exclude_special: bool = False,
) -> Explanation | None:
    """Render the explanation of ``cos(text_a, text_b)`` under the page's ``pooling`` and
    ``layers``: what to notice, the token x token heatmap (exact splits), each text's tokens
    shaded by their share, the top pairs in words and "Show code". Under [CLS] pooling the
    slow attribution waits for a button (unless cached). Widget keys start with ``key``.
    Returns the explanation, or None when it was not computed (a message says why)."""
    tokenizer = load(model_ref).tokenizer  # its own first and padding tokens: <s>, <pad>
    first = tokenizer.cls_token
    how = f"{pooling_labels(first).get(pooling, pooling)}, {layers_label(layers)}"
    if pooling == "cls":
        first = first or "first-token"
        messages.caption(
            f"With {first} pooling a text is one token's vector, which every token shaped "
            "through attention: there is no exact split into token pairs. What is shown is an "
            "attribution per token (integrated gradients): how much each word adds to the "
            f"cosine over a text whose words are all {tokenizer.pad_token or '[PAD]'}, summing "
            "to that up to a small gap (reported below)."
        )
        if not is_cached(model_ref, text_a, text_b, pooling, layers, exclude_special):
            if not st.toggle(
                f"Attribute {messages.escape(first)} similarities (slow: several seconds each)",
                key=f"{key}.attribute",
                help="Integrated gradients run the model forward and backward hundreds of "
                "times; on, every pair you pick is attributed.",
            ):
                return None
    try:
        explained = explanation(model_ref, text_a, text_b, pooling, layers, exclude_special)
    except ValueError as error:
        messages.info(error)
        return None
    messages.info(explanation_notice(explained))
    if explained.pairs is not None:
        st.plotly_chart(pair_heatmap(explained), width="stretch", key=f"{key}.pairs")
    for side, name in zip(("a", "b"), names, strict=True):
        st.markdown(f"**{name}**, each token shaded by its share of the similarity:")
        st.html(shaded_tokens_html(explained, side))
    st.caption(
        "Blue: the token brings the texts together; red: it pulls them apart; the stronger, "
        "the larger its share (hover a token for its value)."
    )
    lines = explained.describe(TOP_PAIRS)
    heading = "The top pairs" if explained.pairs is not None else "The top tokens"
    st.markdown(
        f"**{heading}** ({how}, cosine {explained.score:.3f}):\n\n"
        + "\n".join(f"- {messages.escape(line)}" for line in lines)
    )
    show_code(
        explain_snippet(
            model_ref,
            text_a,
            text_b,
            pooling,
            layers,
            exclude_special=exclude_special,
            top=TOP_PAIRS,
            steps=max(explained.steps, 16),
        ),
        caption="Plain transformers + torch + numpy: the cosine of the two texts and where it "
        "comes from, printing the numbers above.",
        label="Show code: why these two are close",
    )
    return explained
