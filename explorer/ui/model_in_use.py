"""The model resource (loaded once per server, keyed by its :class:`~explorer.model.ref.ModelRef`)
and the sidebar picker.

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

from explorer.model.cache import ModelCache, NoRoom
from explorer.model.hub import DEFAULT_MODEL
from explorer.model.loading import load_ref
from explorer.model.ref import ModelRef
from explorer.server import limits
from explorer.server.settings import DEFAULT_MODEL_MEMORY, Settings, from_environment
from explorer.server.warmup import freeze_survivors
from explorer.ui import messages

if TYPE_CHECKING:
    from explorer.model import Model

MODEL_KEY = "model_name"
"""Session-state key of the :class:`ModelRef` every page uses (the last one that loaded)."""

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
    """What visitors see for the model of a :data:`MODELS` key ``(model_ref, max_parameters)``."""
    return key[0].label(settings().label_of)


def room_refusal(key: tuple, error: NoRoom, max_bytes: int) -> str:
    """Why the model of ``key`` is not loaded now (``error`` from :data:`MODELS`, whose
    budget is ``max_bytes``), and what would fit: the models in use (loaded already, free to
    choose), or a model up to the bytes they leave, or the same one a little later."""
    busy = ", ".join(f"{_label(k)} ({size / MB:,.0f} MB)" for k, size in error.busy.items())
    loaded = [_label(k) for k in error.busy if not k[0].random]
    return (
        f"{_label(key)} needs {error.needed / MB:,.0f} MB of weights, and this server holds at "
        f"most {max_bytes / MB:,.0f} MB of models at once; requests in progress are using "
        f"{busy} right now. What fits now: "
        + (f"{' or '.join(loaded)} (loaded already), or " if loaded else "")
        + f"a model of up to {error.free / MB:,.0f} MB of weights. Or try again in a minute, "
        "when those requests have ended."
    )


_frozen = threading.Lock()


def _freeze_once() -> None:
    """After the first model loads, move every object the process holds (torch, transformers,
    the model: some 600,000) out of the cyclic garbage collector's reach (:func:`gc.freeze`).
    Streamlit runs a full collection after every script run; with them tracked it took about
    0.5 s of CPU per rerun, holding the GIL (bench/bigmap.py, bench/README.md). Objects made
    later, and later models, are collected as before."""
    if _frozen.acquire(blocking=False):
        freeze_survivors()


def _waiting(model_ref: ModelRef):
    """The spinner while ``model_ref`` loads (it is not in :data:`MODELS`)."""
    if model_ref.random:
        return st.spinner("Building the same model with random weights…")
    return st.spinner("Loading the model…")


def load(model_ref: ModelRef) -> Model:
    """The model of ``model_ref`` through :data:`MODELS`
    (:func:`~explorer.model.loading.load_ref`), with the operator's size limit and a spinner
    while it loads; random weights are built only when a page asks for them, and are the
    first to leave. Raises ``ValueError`` when it cannot be loaded,
    :class:`~explorer.model.cache.NoRoom` saying :func:`room_refusal` when it does not fit
    beside the models in use."""
    config = settings()
    MODELS.max_bytes = config.model_memory
    try:
        model = load_ref(model_ref, MODELS, config.max_parameters, _waiting)
    except NoRoom as error:
        error.args = (room_refusal(error.key, error, MODELS.max_bytes),)
        raise
    _freeze_once()
    return model


def _current_ref() -> ModelRef:
    """The model chosen in the sidebar (the bundled default until another loads): it keys
    every cache. Pages take it from :func:`current_model` (``model.ref``)."""
    return st.session_state.get(MODEL_KEY, ModelRef(DEFAULT_MODEL))


def current_model_label() -> str:
    """What visitors see for the model in use (never a server path)."""
    return _current_ref().label(settings().label_of)


def current_model() -> Model:
    """The model chosen in the sidebar, loaded (cached); ``model.ref`` names it to the
    cached computations of :mod:`explorer.ui.compute`."""
    return load(_current_ref())


def loaded_model() -> Model | None:
    """The model chosen in the sidebar when the server holds it already, else ``None``
    (nothing is loaded for the asking: the home page draws its cards before the model
    loads)."""
    model_ref = _current_ref()
    if (model_ref, settings().max_parameters) not in MODELS:
        return None
    try:
        return load(model_ref)  # in memory: no load, no spinner (unless it just left)
    except ValueError:  # it left, and no longer fits beside the models in use
        return None


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
    in_use = _current_ref().link
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
                model_ref = ModelRef.parse(wanted)
                load(model_ref)
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
                st.session_state[MODEL_KEY] = model_ref
                st.session_state.pop(_NOTICE_KEY, None)
        if busy or wanted in failed:
            st.session_state[_NOTICE_KEY] = busy or failed[wanted]
            if choice != OTHER_LABEL:
                st.session_state[_RESET_KEY] = config.label_of(in_use)
                st.rerun()
    notice = st.session_state.get(_NOTICE_KEY)
    if notice:
        messages.error(notice, st.sidebar)
        messages.caption(f"Still using {current_model_label()}.", st.sidebar)
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
