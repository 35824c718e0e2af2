"""The Attention page's masked-language-model lens: a sentence with ``[MASK]``, the model's
guesses at every layer (:func:`explorer.attention.layer_predictions`, cached), and "Show code"; or,
for a model saved without its masked-LM head, how to get one."""

from __future__ import annotations

import streamlit as st

from explorer.codegen.attention import lens_snippet
from explorer.data.examples import MASKED
from explorer.figures.attention import lens_figure, lens_table
from explorer.model.ref import ModelRef
from explorer.server import limits
from explorer.ui import messages, presentation
from explorer.ui.attention_heads._analysis import layer_predictions, masked_lm
from explorer.ui.widgets import URL, show_code

NO_HEAD = (
    "The lens needs a model saved **with** its masked-language-model head, the part that turns "
    "a vector into a probability for every word of the vocabulary. Choose one in the sidebar "
    "if the server offers one (for example `bert-base-uncased` or `distilbert-base-uncased`, "
    "a local folder or a Hugging Face id)."
)


def lens_section(model_ref: ModelRef) -> None:
    """The lens of the model ``model_ref``: its guesses for every mask at every layer, each
    with the layer where the final guess first tops the list. Stops the page for a sentence
    the lens cannot read (after saying why)."""
    try:
        lm = masked_lm(model_ref)
    except ValueError as error:
        messages.info(error)
        st.markdown(NO_HEAD)
        return
    masked = st.text_area(
        "Sentence with [MASK]",
        MASKED,
        key="attention.masked",
        bind=URL,
        height=68,
        help="Write [MASK] where the model should guess a word; several masks work.",
    )
    k = st.slider("Guesses per layer", 3, 10, 5, key="attention.k")
    try:
        found = layer_predictions(model_ref, masked, 10)
    except ValueError as error:
        messages.error(error)
        st.stop()
    if found.truncated:
        st.warning(f"Only the first {lm.max_length} tokens were read.")
    masks_note = limits.lens_masks_note(found.masks_found)
    if masks_note:
        st.info(masks_note)
    for number, position in enumerate(found.positions):
        messages.markdown(
            "**Mask {n}** (token {p}): the model's guess is **{w}** "
            f"({found.probabilities[-1, number, 0]:.0%}); it tops the list at layer "
            f"{found.first_on_top(number)} first.",
            n=number + 1,
            p=position,
            w=found.top_tokens[-1][number][0],
        )
        st.plotly_chart(lens_figure(found, number, k), key=f"attention.lens{number}")
        with st.expander(f"Top {k} at every layer, as a table"):
            presentation.table(lens_table(found, number).iloc[:, :k])
    show_code(lens_snippet(model_ref, masked, k))
