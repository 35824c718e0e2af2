"""The two models of the Compare models page: model A is the sidebar's, model B the visitor's
choice among the operator's models or A's random weights, bound to the page link
(``?compare.model_b=…``). A pair that does not fit the server's bytes of models
(``EXPLORER_MODEL_MEMORY``) is refused before B loads, naming the choices that would fit."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from explorer.compare import estimated_weight_bytes, pair_refusal
from explorer.model import Model
from explorer.model.ref import ModelRef
from explorer.ui import messages
from explorer.ui.model_in_use import (
    current_model,
    current_model_label,
    load,
    settings,
)
from explorer.ui.widgets import URL, option_labels

KEY = "compare.model_b"
"""Widget key (and query parameter) of model B."""

RANDOM = "random weights"
"""The choice of model B that is model A's architecture and tokenizer with random weights."""


@dataclass(frozen=True)
class Side:
    """One model of the pair: ``ref`` is what :func:`explorer.ui.model_in_use.load` and the caches
    take, ``label`` what visitors see, ``tokenizer`` the model whose tokenizer it uses (A's
    trained one for random weights: no need to build the model to tokenize)."""

    ref: ModelRef
    label: str

    @property
    def tokenizer(self) -> ModelRef:
        return self.ref.trained()


@dataclass(frozen=True)
class Pair:
    """Model A and model B."""

    a: Side
    b: Side

    def models(self) -> tuple[Model, Model]:
        """Both models, loaded (cached by their refs)."""
        return load(self.a.ref), load(self.b.ref)


@st.cache_data(show_spinner=False, max_entries=64)
def _estimate(source: str) -> int | None:
    """Estimated bytes of ``source``'s weights, or ``None`` when its configuration cannot be
    read here (then loading it says why)."""
    try:
        return estimated_weight_bytes(source)
    except ValueError:
        return None


def _bytes_of(choice: str, model_a: Model) -> int | None:
    if choice == RANDOM:
        return model_a.weight_bytes
    picked = settings().choice(choice)
    if picked is None or ModelRef(picked.source) == model_a.ref:
        return 0  # model A itself: no second copy
    return _estimate(picked.source)


def _fitting(options: list[str], chosen: str, model_a: Model, max_bytes: int) -> list[str]:
    """The choices of model B besides ``chosen`` that fit beside ``model_a``."""
    room = max_bytes - model_a.weight_bytes
    fits = []
    for option in options:
        if option != chosen:
            size = _bytes_of(option, model_a)
            if size is not None and size <= room:
                fits.append(choice_label(option))
    return fits


def choice_label(option: str) -> str:
    """How a choice of model B is named in sentences."""
    return f"{current_model_label()} with random weights" if option == RANDOM else option


def choose_pair(container) -> Pair | None:
    """Model B's picker in ``container``; the pair, both models loaded, or ``None`` after
    showing why it cannot be compared (too large together, or B failed to load)."""
    config = settings()
    label_a = current_model_label()
    options = [RANDOM, *(c.label for c in config.models)]
    choice = container.selectbox(
        "Model B",
        options,
        format_func=option_labels([(RANDOM, "Model A with random weights")]),
        key=KEY,
        bind=URL,
        help="Model A is the one chosen in the sidebar. Model B: another model this server "
        "offers, or model A's architecture and tokenizer with random (untrained) weights, "
        "which shows what training did.",
    )
    model_a = current_model()
    size_b = _bytes_of(choice, model_a)
    if size_b is not None:
        refusal = pair_refusal(
            label_a,
            model_a.weight_bytes,
            choice_label(choice),
            size_b,
            config.model_memory,
            _fitting(options, choice, model_a, config.model_memory),
        )
        if refusal:
            messages.error(refusal)
            return None
    if choice == RANDOM:
        side_b = Side(model_a.ref.random_twin(), choice_label(RANDOM))
    else:
        picked = config.choice(choice) or config.models[0]
        side_b = Side(ModelRef(picked.source), picked.label)
    pair = Pair(Side(model_a.ref, label_a), side_b)
    try:
        pair.models()
    except ValueError as error:
        messages.error(config.hide_paths(str(error)))
        return None
    return pair
