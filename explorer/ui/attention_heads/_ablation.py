"""The Attention page's head ablation (Michel, Levy and Neubig 2019): switch chosen heads off
and see the sense gap, the cosine of two sentences and the masked-LM guess move; rank single
heads by how much removing each one moves a measure (heavy lane, progress bar)."""

from __future__ import annotations

import streamlit as st

from explorer import attention
from explorer.codegen.ablation import ablation_snippet
from explorer.data.examples import ATTENTION_PAIR, MASKED, TUTORIAL
from explorer.figures.ablation import (
    ablation_notice,
    comparison_table,
    ranking_heatmap,
    ranking_notice,
)
from explorer.model.ablation import check_heads
from explorer.model.ref import ModelRef
from explorer.server import limits
from explorer.ui import compute, messages, presentation
from explorer.ui.model_in_use import load
from explorer.ui.progress import progress_bar
from explorer.ui.widgets import show_code

MAX_HEAD_PASSES = 1_200
"""Heads one ranking switches off in turn with the bundled model (each costs a set of short
forward passes), :func:`explorer.server.limits.scaled` by the model's work: all 72 of the
bundled model's, all 144 of BERT-base's (13.4 s on a quiet 2-core machine, 93 ms a head),
about 41 of BERT-large's 384 (40 in 14.0 s; ``python -m bench.ablation [--model FOLDER]``)."""


def _masked_sentence(model) -> str | None:
    """The lens's sentence (the page's, else the default) when the model has a masked-LM
    head, else ``None``."""
    if model.masked_lm is None:
        return None
    return st.session_state.get("attention.masked", MASKED)


def _measure(model_ref: ModelRef, heads: dict, first: str, second: str, masked, word=None):
    key = ("ablation", model_ref, tuple(sorted(heads.items())), first, second, masked, word)
    return compute.cached(
        "probes",
        key,
        lambda: attention.measure(load(model_ref), heads, first, second, masked, word),
        "Running the model with the heads off…",
    )


def prewarm_measures(model_ref: ModelRef) -> None:
    """What the section first shows for the page's default texts (no head off, the lens's
    default sentence), computed once per server before the first visitor (the prewarm)."""
    model = load(model_ref)
    masked = None if model.masked_lm is None else MASKED
    full = _measure(model_ref, {}, TUTORIAL, ATTENTION_PAIR, masked)
    if full.guess is not None:
        _measure(model_ref, {}, TUTORIAL, ATTENTION_PAIR, masked, full.guess[0])


def ablation_section(model_ref: ModelRef, text: str, pair: str | None) -> None:
    """Head ablation on the model ``model_ref``: the sentence cosine compares ``text`` with
    ``pair`` (the page's second sentence, else its default)."""
    st.subheader("Are all heads needed?")
    model = load(model_ref)
    layers, heads = model.num_layers, model.encoder.config.num_attention_heads
    second = pair or ATTENTION_PAIR
    left, right = st.columns(2)
    pick = left.multiselect(
        "Switch off heads",
        [f"{layer}.{head}" for layer in range(1, layers + 1) for head in range(1, heads + 1)],
        key="attention.ablate",
        help="layer.head, counted from 1",
    )
    whole = right.multiselect(
        "Switch off every head of layers", list(range(1, layers + 1)), key="attention.ablate_all"
    )
    chosen: dict[int, list[int]] = {layer: list(range(1, heads + 1)) for layer in whole}
    for label in pick:
        layer, head = map(int, label.split("."))
        chosen.setdefault(layer, []).append(head)
    try:
        zeroed = check_heads(model, chosen)
        off = {layer + 1: tuple(h + 1 for h in hs) for layer, hs in zeroed.items()}
        masked = _masked_sentence(model)
        full = _measure(model_ref, {}, text, second, masked)
        word = None if full.guess is None else full.guess[0]
        ablated = _measure(model_ref, off, text, second, masked, word)
    except ValueError as error:
        messages.error(error)
        return
    st.info(ablation_notice(full, ablated, layers * heads), icon=":material/lightbulb:")
    presentation.table(
        comparison_table(full, ablated),
        hide_index=True,
        key="attention.ablation_table",
        column_config={
            c: st.column_config.NumberColumn(c, format="%.4f")
            for c in ("all heads", "heads off", "change")
        },
    )
    st.caption(
        "The sense gap: Word in context's built-in 'bank' sentences at the last layer; the "
        "cosine: the mean of the last layer's token vectors of the page's text and "
        + ("its second sentence." if pair else f"{ATTENTION_PAIR!r}.")
        + (
            ""
            if masked is not None
            else " This model has no masked-LM head, so there is no lens guess to compare."
        )
    )
    show_code(
        ablation_snippet(model_ref, off, text, second),
        caption="Heads switched off with plain transformers and torch: a forward pre-hook on "
        "each layer's attention output projection zeroes the heads' context vectors.",
    )
    _ranking(model, text, second, masked)


def _ranking(model, first, second, masked) -> None:
    options = ["gap", "cosine"] + (["guess"] if masked is not None else [])
    what = st.selectbox(
        "Rank single heads by the change in",
        options,
        format_func=attention.ABLATION_MEASURES.get,
        key="attention.rank_by",
    )
    if not st.toggle("Rank the heads (one set of forward passes per head)", key="attention.rank"):
        return
    total = len(attention.all_heads(model))
    ranked = tuple(attention.spread_heads(model, limits.scaled(model, MAX_HEAD_PASSES)))

    def run():
        title = f"Switching off {len(ranked)} heads one at a time… head"
        with progress_bar(title) as report:
            return attention.rank_heads(model, what, first, second, masked, ranked, report)

    key = ("ablation rank", model.ref, what, first, second, masked, ranked)
    try:
        table = compute.cached("probes", key, run, heavy=True)
    except ValueError as error:
        messages.error(error)
        return
    if len(ranked) < total:
        why = limits.slower(model) or "the ranking's budget"
        messages.info(
            f"Ranked {len(ranked)} of {total} heads, evenly spread over the layers: {why}."
        )
    measure = attention.ABLATION_MEASURES[what]
    st.info(ranking_notice(table, measure, total), icon=":material/lightbulb:")
    st.plotly_chart(
        ranking_heatmap(table, model.num_layers, total // model.num_layers, measure),
        key="attention.rank_map",
        width="stretch",
    )
