"""The two models of the Compare models page: model A is the sidebar's, model B the visitor's
choice among the operator's models or A's random weights, bound to the page link
(``?compare.model_b=…``). A pair that does not fit the server's bytes of models
(``EXPLORER_MODEL_MEMORY``) is refused before B loads, naming the choices that would fit."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from explorer.compare import estimated_weight_bytes, pair_refusal
from explorer.model import Model
from explorer.ui import messages
from explorer.ui.model_in_use import (
    RANDOM_PREFIX,
    current_model,
    current_model_label,
    current_model_name,
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
    """One model of the pair: ``name`` is what :func:`explorer.ui.model_in_use.load` and the caches
    take, ``label`` what visitors see, ``source`` the hub id or folder (A's for random
    weights), ``random`` whether the weights are untrained, ``tokenizer`` the name of the
    model whose tokenizer it uses (A's for random weights: no need to build the model to
    tokenize)."""

    name: str
    label: str
    source: str
    random: bool = False

    @property
    def tokenizer(self) -> str:
        return self.source if self.random else self.name


@dataclass(frozen=True)
class Pair:
    """Model A and model B."""

    a: Side
    b: Side

    def models(self) -> tuple[Model, Model]:
        """Both models, loaded (cached by name)."""
        return load(self.a.name), load(self.b.name)


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
    if picked is None or picked.source == current_model_name():
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
    name_a, label_a = current_model_name(), current_model_label()
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
        side_b = Side(RANDOM_PREFIX + name_a, choice_label(RANDOM), name_a, random=True)
    else:
        picked = config.choice(choice) or config.models[0]
        side_b = Side(picked.source, picked.label, picked.source)
    pair = Pair(Side(name_a, label_a, name_a), side_b)
    try:
        pair.models()
    except ValueError as error:
        messages.error(config.hide_paths(str(error)))
        return None
    return pair
