"""The model resource (loaded once per server, keyed by its name) and the sidebar picker.

Visitors choose from the operator's list (:mod:`explorer.server.settings`); the picker is bound
to the page link (``?model=…``), so a reload or a shared link keeps the choice. A model that fails
to load leaves the previous one in use, resets the picker to it and says why, naming the choice as
the visitor saw it (never a server path).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

import streamlit as st

import explorer
from explorer.model.cache import ModelCache, NoRoom
from explorer.model.hub import DEFAULT_MODEL
from explorer.model.loading import expected_weight_bytes
from explorer.server import limits
from explorer.server.settings import DEFAULT_MODEL_MEMORY, Settings, from_environment
from explorer.server.warmup import freeze_survivors
from explorer.ui import messages

if TYPE_CHECKING:
    from explorer.model import Model

MODEL_KEY = "model_name"
"""Session-state key of the model source every page uses (the last one that loaded)."""

PICKER_KEY = "model"
"""Key of the picker (also its query parameter)."""

OTHER_LABEL = "Other: type a Hugging Face id or a local folder…"

_LOG = logging.getLogger(__name__)

_RESET_KEY = "model.reset_to"
_FAILED_KEY = "model.failed"
_NOTICE_KEY = "model.notice"


def settings() -> Settings:
    """The operator's settings (environment variables, read on every run: cheap)."""
    return from_environment()


MODELS = ModelCache(DEFAULT_MODEL_MEMORY, idle_seconds=limits.BASELINE_IDLE_SECONDS)
"""Every model the server holds (trained and random-weights baselines together), bounded by
the bytes of their weights (``EXPLORER_MODEL_MEMORY``, read on every load), those still in
use by a page run included; a baseline unused for
:data:`explorer.server.limits.BASELINE_IDLE_SECONDS` leaves. A model that does not fit beside
the models in use is refused with :func:`room_refusal`."""

MB = 2**20


def _label(key: tuple) -> str:
    """What visitors see for the model of a :data:`MODELS` key."""
    name = key[0]
    if name.startswith(RANDOM_PREFIX):
        return f"{settings().label_of(name.removeprefix(RANDOM_PREFIX))} with random weights"
    return settings().label_of(name)


def room_refusal(key: tuple, error: NoRoom, max_bytes: int) -> str:
    """Why the model of ``key`` is not loaded now (``error`` from :data:`MODELS`, whose
    budget is ``max_bytes``), and what would fit: the models in use (loaded already, free to
    choose), or a model up to the bytes they leave, or the same one a little later."""
    busy = ", ".join(f"{_label(k)} ({size / MB:,.0f} MB)" for k, size in error.busy.items())
    loaded = [_label(k) for k in error.busy if not str(k[0]).startswith(RANDOM_PREFIX)]
    return (
        f"{_label(key)} needs {error.needed / MB:,.0f} MB of weights, and this server holds at "
        f"most {max_bytes / MB:,.0f} MB of models at once; requests in progress are using "
        f"{busy} right now. What fits now: "
        + (f"{' or '.join(loaded)} (loaded already), or " if loaded else "")
        + f"a model of up to {error.free / MB:,.0f} MB of weights. Or try again in a minute, "
        "when those requests have ended."
    )


def _cached(
    key: tuple, load_model, spinner: str, disposable: bool = False, size: int | None = None
) -> Model:
    """``load_model()`` through :data:`MODELS`, with ``spinner`` while it loads (a model that
    left comes back the same way); ``size``, its weights' bytes when known before it loads.
    Raises :class:`~explorer.model.cache.NoRoom` (a ``ValueError``) saying
    :func:`room_refusal` when it does not fit beside the models in use."""
    MODELS.max_bytes = settings().model_memory
    try:
        if key in MODELS:
            return MODELS.get(key, load_model, disposable, size)
        with st.spinner(spinner):
            return MODELS.get(key, load_model, disposable, size)
    except NoRoom as error:
        error.args = (room_refusal(key, error, MODELS.max_bytes),)
        raise


def get_model(name: str = DEFAULT_MODEL, max_parameters: int | None = None) -> Model:
    """The loaded model called ``name`` (refused above ``max_parameters``), kept in
    :data:`MODELS`; raises ``ValueError`` when it cannot be loaded."""

    def load_model() -> Model:
        model = explorer.load_model(name, max_parameters=max_parameters)
        _freeze_once()
        return model

    key = (name, max_parameters)
    # Known before loading, the weights' bytes let a model that cannot fit be refused unread.
    size = None if key in MODELS else expected_weight_bytes(name)
    return _cached(key, load_model, "Loading the model…", size=size)


_frozen = threading.Lock()


def _freeze_once() -> None:
    """After the first model loads, move every object the process holds (torch, transformers,
    the model: some 600,000) out of the cyclic garbage collector's reach (:func:`gc.freeze`).
    Streamlit runs a full collection after every script run; with them tracked it took about
    0.5 s of CPU per rerun, holding the GIL (bench/bigmap.py, bench/README.md). Objects made
    later, and later models, are collected as before."""
    if _frozen.acquire(blocking=False):
        freeze_survivors()


def baseline_refusal(weight_bytes: int, max_bytes: int) -> str | None:
    """Why a model of ``weight_bytes`` gets no random-weights baseline, or ``None``: the
    baseline is a second copy of the weights, and with the trained model it must fit the
    server's ``max_bytes`` of models (``EXPLORER_MODEL_MEMORY``). Else one would push the
    other out and every comparison would load both again: BERT-large's two 1.3 GB copies
    (2.7 GB) are over the 1 GiB default and the 3 GB a server with it is given; BERT-base's
    two 0.42 GB copies fit."""
    if 2 * weight_bytes <= max_bytes:
        return None
    return (
        f"The comparison with random weights needs a second copy of this model "
        f"({weight_bytes / 2**20:,.0f} MB of weights), and the two are more than this server "
        f"keeps loaded ({max_bytes / 2**20:,.0f} MB). The rest of the page works without "
        "it; a smaller model can be compared with its random weights."
    )


RANDOM_PREFIX = "random-weights:"
"""A model name ``random-weights:<name>`` is ``<name>``'s architecture with untrained weights."""


def _random_model(name: str, max_parameters: int | None) -> Model:
    """The random-weights baseline of ``name``: built only when a page asks for it, and the
    first model to leave :data:`MODELS`. Refused (``ValueError``) when it and the trained
    model do not fit in :data:`MODELS`' bytes together (:func:`baseline_refusal`)."""
    from explorer.model.loading import random_weights

    trained = get_model(name, max_parameters)
    refusal = baseline_refusal(trained.weight_bytes, MODELS.max_bytes)
    if refusal:
        raise ValueError(refusal)
    return _cached(
        (RANDOM_PREFIX + name, max_parameters),
        lambda: random_weights(trained),
        "Building the same model with random weights…",
        disposable=True,
        size=trained.weight_bytes,  # at most: the baseline has no masked-LM head
    )


def load(name: str) -> Model:
    """:func:`get_model` with the operator's size limit; ``random-weights:<name>`` gives the
    untrained baseline of ``<name>`` (:func:`explorer.model.loading.random_weights`)."""
    if name.startswith(RANDOM_PREFIX):
        return _random_model(name.removeprefix(RANDOM_PREFIX), settings().max_parameters)
    return get_model(name, settings().max_parameters)


def current_model_name() -> str:
    """Source of the model chosen in the sidebar (the bundled default until another loads).
    It keys every cache; show :func:`current_model_label` to visitors instead."""
    return st.session_state.get(MODEL_KEY, DEFAULT_MODEL)


def current_model_label() -> str:
    """What visitors see for the model in use (never a server path)."""
    return settings().label_of(current_model_name())


def current_model() -> Model:
    """The model chosen in the sidebar, loaded (cached)."""
    return load(current_model_name())


def _refusal(source: str, label: str, error: Exception, free_entry: bool) -> str:
    """The message for a model that failed to load; server paths replaced by the label
    unless the visitor typed the path themselves."""
    message = str(error)
    if not free_entry and source != label:
        message = message.replace(source, label)
    return message


def _forget_notice() -> None:
    """A new choice in the picker: the refusal of the previous one has been read."""
    st.session_state.pop(_NOTICE_KEY, None)


def model_picker():
    """Sidebar: choose a model; keep the previous one working if the new one fails to load.

    Returns an empty sidebar slot for :func:`model_info`."""
    config = settings()
    in_use = current_model_name()
    # A drawn widget cannot change: a failed choice is reset before the next run draws it.
    if _RESET_KEY in st.session_state:
        st.session_state[PICKER_KEY] = st.session_state.pop(_RESET_KEY)
    labels = [c.label for c in config.models] + ([OTHER_LABEL] if config.free_entry else [])
    st.sidebar.header("Model")
    choice = st.sidebar.selectbox(
        "Encoder",
        labels,
        key=PICKER_KEY,
        bind="query-params",
        on_change=_forget_notice,
        help="The bundled model works offline. The others load from this server's Hugging "
        "Face cache or, where it has a network, from the hub."
        + (
            ""
            if config.max_parameters is None
            else f" Models up to {config.max_parameters / 1e6:,.0f} M parameters."
        ),
    )
    if choice == OTHER_LABEL:
        wanted = st.sidebar.text_input(
            "Model id or folder",
            key="model.other",
            on_change=_forget_notice,
            placeholder="e.g. google/electra-small-discriminator or /path/to/model",
        ).strip()
        label = wanted
    else:
        picked = config.choice(choice) or config.models[0]
        wanted, label = picked.source, picked.label
    failed: dict[str, str] = st.session_state.setdefault(_FAILED_KEY, {})
    if wanted and wanted != in_use:
        busy = None  # a refusal for now (the models in use leave no room), not remembered
        if wanted not in failed:
            try:
                load(wanted)
            except NoRoom as error:
                busy = _refusal(wanted, label, error, config.free_entry)
            except ValueError as error:
                failed[wanted] = _refusal(wanted, label, error, config.free_entry)
            except Exception as error:  # noqa: BLE001 - a failure the library did not foresee
                _LOG.exception("Model %r failed to load", wanted)
                failed[wanted] = (
                    f"{label} could not be loaded ({type(error).__name__}); the server's log "
                    "says why."
                )
            else:
                st.session_state[MODEL_KEY] = wanted
                st.session_state.pop(_NOTICE_KEY, None)
        if busy or wanted in failed:
            st.session_state[_NOTICE_KEY] = busy or failed[wanted]
            if choice != OTHER_LABEL:
                st.session_state[_RESET_KEY] = config.label_of(in_use)
                st.rerun()
    notice = st.session_state.get(_NOTICE_KEY)
    if notice:
        messages.error(notice, st.sidebar)
        messages.caption(f"Still using {config.label_of(current_model_name())}.", st.sidebar)
    return st.sidebar.empty()


def model_info(slot) -> None:
    """The model in use, in ``slot`` (loads it if no page has yet); when it cannot be loaded
    beside the models in use now, says so and stops the run."""
    try:
        model = current_model()
    except NoRoom as error:  # it left while idle, and the models in use leave no room now
        messages.warning(f"{current_model_label()} is not loaded at the moment. {error}")
        st.stop()
    with slot.container():
        messages.caption(f"In use: {current_model_label()}")
        st.caption(
            f"{model.num_layers} layers · hidden size {model.hidden_size} · "
            f"vocabulary {model.vocab_size:,} · {model.num_parameters / 1e6:.1f} M parameters "
            f"· up to {model.max_length} tokens · {'uncased' if model.lowercase else 'cased'}"
        )
