"""Widgets several pages share: vector downloads, "Show code" (texts: :mod:`explorer.ui.sources`).

Widget keys are namespaced by the page's prefix (``"projections.source"``), so two pages never
share a widget's state, and the main choices are bound to the page link.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from explorer import export

URL = "query-params"
"""``bind`` value of widgets whose value belongs in the page link."""


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
    ``<stem>.npy`` and ``frame`` (from :func:`explorer.export.vectors_frame`) as
    ``<stem>.csv``; widget keys ``<key>.download_npy`` and ``<key>.download_csv``."""
    columns[0].download_button(
        f"{npy_label} (.npy, {vectors.shape[0]} × {vectors.shape[1]})",
        export.to_npy_bytes(vectors),
        file_name=f"{stem}.npy",
        mime="application/octet-stream",
        on_click="ignore",
        key=f"{key}.download_npy",
    )
    columns[1].download_button(
        csv_label,
        export.to_csv_bytes(frame),
        file_name=f"{stem}.csv",
        mime="text/csv",
        on_click="ignore",
        key=f"{key}.download_csv",
    )


def show_code(*snippets: str, caption: str | None = None, height: int | str = "content") -> None:
    """A "Show code" expander with ``snippets`` (Python), after an optional ``caption``."""
    with st.expander("Show code"):
        if caption:
            st.caption(caption)
        for snippet in snippets:
            st.code(snippet, language="python", height=height)
