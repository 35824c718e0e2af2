"""Widgets several pages share: choices, pooling, layers and subword pickers, the label column
picker, downloads, "Show code" (the text-source picker is :mod:`explorer.ui.sources`'s).

Widget keys are namespaced by the page's prefix (``"projections.source"``), so two pages never
share a widget's state, and the main choices are bound to the page link.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from explorer.codegen import hide_folders
from explorer.data import export
from explorer.server.settings import operator_folders
from explorer.ui import presentation

URL = "query-params"
"""``bind`` value of widgets whose value belongs in the page link."""

NO_COLUMN = "(none)"
"""The label column picker's choice of no column."""


def option_labels(pairs: Iterable[tuple[Hashable, str]]) -> Callable[[Hashable], str]:
    """A widget's ``format_func`` that holds nothing but these (option, label) pairs.

    Streamlit keeps a widget's ``format_func`` for as long as the session shows the widget. A
    lambda written in a page holds the page's whole namespace (its ``__globals__``), and one in
    a function holds what it names: the Attention page's lambda kept each session's last
    analysis alive (75 MB of attention weights for 512 tokens) after the shared cache had let
    it go. Pass the labels through here instead. An option without a label (a stale value
    from an old link) shows as ``str(option)``."""
    labels = dict(pairs)

    def label(option: Hashable) -> str:
        return labels.get(option, str(option))

    return label


def vector_downloads(
    columns: Sequence,
    vectors: np.ndarray,
    frame: pd.DataFrame,
    stem: str,
    key: str,
    npy_label: str = "Vectors",
    csv_label: str = "Vectors with text (.csv)",
) -> None:
    """Two download buttons in ``columns[0]`` and ``columns[1]``: ``vectors`` ``(n, dim)`` as
    ``<stem>.npy`` and ``frame`` (from :func:`explorer.data.export.vectors_frame`) as
    ``<stem>.csv``; widget keys ``<key>.download_npy`` and ``<key>.download_csv``."""
    columns[0].download_button(
        f"{npy_label} (.npy, {vectors.shape[0]} × {vectors.shape[1]})",
        export.to_npy_bytes(vectors),
        file_name=f"{stem}.npy",
        mime="application/octet-stream",
        on_click="ignore",
        key=f"{key}.download_npy",
    )
    csv_download(columns[1], csv_label, frame, f"{stem}.csv", f"{key}.download_csv")


def csv_download(container, label: str, frame: pd.DataFrame, file_name: str, key: str) -> None:
    """A download button for ``frame`` as a formula-safe CSV (:func:`export.to_csv_bytes`)."""
    container.download_button(
        label,
        export.to_csv_bytes(frame),
        file_name=file_name,
        mime="text/csv",
        on_click="ignore",
        key=key,
    )


def show_code(
    *snippets: str,
    caption: str | None = None,
    height: int | str = "content",
    label: str = "Show code",
    data: tuple[str, bytes] | None = None,
) -> None:
    """A "Show code" expander (titled ``label``) with ``snippets`` (Python), after an optional
    ``caption`` and, when the programs read a ``data`` file ``(file name, contents)``, its
    download button; the operator's model folders are written as ``path/to/<name>``."""
    folders = operator_folders()
    with st.expander(label):
        if caption:
            st.caption(caption)
        if data is not None:
            st.download_button(
                f"Data for the program ({data[0]})",
                data[1],
                file_name=data[0],
                mime="application/json",
                on_click="ignore",
                key=f"code.{label}.{data[0]}",
            )
        for snippet in snippets:
            st.code(hide_folders(snippet, folders), language="python", height=height)


def header(path: str) -> None:
    """A page's start, under the router (see :mod:`explorer.ui.navigation`): the heading and
    introduction of the page ``path`` from :data:`explorer.ui.pages.PAGES` (folded into an
    expander in presentation mode)."""
    from explorer.ui.navigation import leave_legacy_pages_mode
    from explorer.ui.pages import page_info

    leave_legacy_pages_mode()
    info = page_info(path)
    st.title(info.heading or info.title)
    if presentation.is_on():  # on a projector the presenter explains: the intro folds away
        st.expander("About this page").markdown(info.intro)
    else:
        st.markdown(info.intro)


def choose(
    container,
    label: str,
    options: Sequence,
    labels,
    key: str,
    default,
    help=None,
    *,
    old_key: str | None = None,
):
    """A selectbox of ``options`` (``default`` one of them) or, when ``default`` is a list, a
    multiselect; ``labels(option)`` names each; bound to the page link as ``key``. A link made
    when the widget was named ``old_key`` still chooses its option (:func:`_old_link`)."""
    options = tuple(options)
    if old_key is not None:
        _old_link(old_key, key, options, labels)
    if isinstance(default, list):
        return container.multiselect(
            label, options, default=default, format_func=labels, key=key, bind=URL, help=help
        )
    return container.selectbox(
        label,
        options,
        index=options.index(default),
        format_func=labels,
        key=key,
        bind=URL,
        help=help,
    )


def _old_link(old_key: str, key: str, options: Sequence, labels) -> None:
    """A selectbox renamed from ``old_key`` to ``key``: a link that still carries ``old_key``
    (an option's label, as Streamlit writes it) chooses that option, unless the link also
    names ``key``; the old parameter leaves the address. Streamlit seeds a bound widget from
    the link's parameters as the page first loaded, so the value goes through Session State."""
    if old_key not in st.query_params:
        return
    value = st.query_params[old_key]
    del st.query_params[old_key]
    chosen = {str(labels(option)): option for option in options}.get(value)
    if chosen is not None and key not in st.query_params and key not in st.session_state:
        st.session_state[key] = chosen


def vector_choice(pooling, layers, *, subwords: str = "mean", post: str = "none"):
    """The choice of vectors the widgets made: :func:`pooling_select`'s pooling (or, from a
    multiselect, a list of them: a tuple of choices in the same order), :func:`layers_select`'s
    layers and the subword mode and post-processing, as :class:`explorer.VectorChoice` values
    (hashable: cache keys and dataclass fields take them). ``ValueError`` for an unknown name."""
    from explorer.choice import VectorChoice

    if isinstance(pooling, str):
        return VectorChoice(pooling, layers, subwords, post)
    return tuple(VectorChoice(p, layers, subwords, post) for p in pooling)


def postprocess_select(container, key: str, help: str | None = None) -> str:
    """Choose a post-processing of the vectors (:data:`explorer.explain._postprocess.LABELS`),
    default none; bound to the page link as ``key``."""
    from explorer.explain import LABELS, POSTPROCESSING

    help = help or (
        "Applied to the vectors before their cosines: a few rogue dimensions with huge values "
        "dominate raw cosines (Timkey and van Schijndel 2021). Centre removes the common "
        "direction, standardize gives every dimension the same spread, all-but-the-top also "
        "removes the top principal directions (Mu and Viswanath 2018)."
    )
    return choose(container, "Post-processing", POSTPROCESSING, LABELS.get, key, "none", help)


def pooling_select(
    container,
    key: str,
    *,
    multi: bool = False,
    help: str | None = None,
    cls_token: str | None = "[CLS]",
):
    """Choose one pooling (``multi=False``, default mean) or several (all by default), labelled
    by :func:`explorer.pooling.pooling_labels` of ``cls_token`` (the model's own first token:
    "<s> token" for RoBERTa or MPNet; the page's figures name it so too)."""
    from explorer.pooling import POOLINGS, pooling_labels

    labels = pooling_labels(cls_token)
    help = help or (
        f"How the token vectors of a text become one vector: the {labels['cls']}, the mean or "
        "the maximum over the tokens (padding excluded), or mean and max side by side."
    )
    label, default = ("Poolings", list(POOLINGS)) if multi else ("Pooling", "mean")
    return choose(container, label, POOLINGS, labels.get, key, default, help)


def layers_select(
    container,
    key: str,
    choices: Sequence,
    *,
    label: str = "Layer strategy",
    help: str = "",
    old_key: str | None = None,
):
    """Choose a layer choice of ``choices`` (default ``last``), labelled by
    :func:`explorer.layers.layers_label`; ``old_key`` as in :func:`choose`."""
    from explorer.layers import layers_label

    return choose(
        container, label, choices, layers_label, key, "last", help or None, old_key=old_key
    )


def subwords_select(container, key: str, *, multi: bool = False, help: str = ""):
    """Choose how the subwords of a split word become one vector (one mode, default mean, or
    several), labelled by :data:`explorer.subwords.SUBWORD_LABELS`."""
    from explorer.subwords import SUBWORD_LABELS, SUBWORD_MODES

    label, default = (
        ("Subword modes", ["first", "mean", "max"]) if multi else ("Subwords of a word", "mean")
    )
    return choose(container, label, SUBWORD_MODES, SUBWORD_LABELS.get, key, default, help or None)


def label_column_picker(
    where, columns: Sequence[str], text_column: str, guessed: str | None, key: str
) -> str | None:
    """A "Label column (colours)" select box in ``where`` (a Streamlit container) offering
    "(none)" and every one of ``columns`` but ``text_column``, at ``guessed`` when it is one
    of them: the chosen column, or ``None``."""
    choices = [NO_COLUMN, *(c for c in columns if c != text_column)]
    chosen = where.selectbox(
        "Label column (colours)",
        choices,
        index=choices.index(guessed) if guessed in choices else 0,
        key=key,
    )
    return None if chosen == NO_COLUMN else chosen
