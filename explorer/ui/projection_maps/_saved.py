"""A saved corpus (``explorer embed``, and ``explorer project`` for its maps) on the map pages:
which rows a map draws, the saved map they come from, and the rows beyond them for the density
layer. Cached; the reading and drawing are :mod:`explorer.data.store.saved_maps`'s."""

from __future__ import annotations

from pathlib import Path

from explorer.choice import VectorChoice
from explorer.maps import ProjectionParams
from explorer.ui.projection_maps._points import StorePoints


def saved_map(path: str, method: str, choice: VectorChoice):
    """:func:`explorer.data.store.saved_maps.saved_map` of the saved corpus at ``path`` under
    ``choice`` (cached), or ``None`` when ``explorer project`` saved no such map."""
    from explorer.data.store import saved_maps
    from explorer.server.limits import MAX_POINTS
    from explorer.ui.compute import cached, open_store

    return cached(
        "projections",
        ("saved map", path, method, choice),
        lambda: saved_maps.saved_map(open_store(path), method, choice, max_points=MAX_POINTS),
    )


def store_first_token(path: str) -> str | None:
    """The first token of the model the saved corpus at ``path`` was embedded with (``"<s>"``
    for MPNet), read from its tokenizer alone (no weights); ``None`` when it cannot be read
    here (the title then says "First token")."""
    from explorer.model.first_token import first_token
    from explorer.ui.compute import open_store

    return first_token(open_store(path).model_name)


def menu_first_token(source, model) -> str | None:
    """The first token the pooling menu names: a saved corpus's own model's
    (:func:`store_first_token`), else the model in use's. A store that cannot be opened names
    none here ("First token"): the page says what is wrong with it where it reads its rows."""
    if source is not None and source.store is not None:
        try:
            return store_first_token(source.store)
        except ValueError:
            return None
    return model.tokenizer.cls_token


def saved_map_of(points, params: ProjectionParams):
    """The saved map ``points`` were drawn from, when the map asked for under ``params`` is
    that saved map (its method, 2-D, its pooling and layers); else ``None`` (fit instead)."""
    saved = getattr(points, "saved", None)
    if saved != params.method or params.n_components != 2:
        return None
    return saved_map(points.path, saved, points.choice)


def saved_density(points, params: ProjectionParams):
    """Coordinates ``(n, 2)`` of every row of the saved map ``points`` come from, when the map
    drawn is that saved map and it holds more rows than are drawn as points; else ``None``."""
    found = saved_map_of(points, params)
    if found is None or len(found.rows) <= len(points.rows):
        return None
    return found.coords


def saved_points(path: str, choice: VectorChoice, method: str | None = None, dims: int = 2):
    """What a map draws of the saved corpus at ``path``: the rows of its saved ``method`` map
    (``explorer project``, 2-D only) when there is one, else at most
    :data:`explorer.server.limits.MAX_POINTS` rows (a random sample beyond), as
    ``(StorePoints, texts, labels, label title, note)``; labels from the store's label column.
    Cached: turning 20,000 rows into tuples took 0.2 s of every rerun. The note says every row
    is drawn when the page draws the saved map whole (the "Every row" checkbox of
    :mod:`._everyrow` on, no second map)."""
    import streamlit as st

    from explorer.ui.compute import cached

    key = ("saved points", path, choice, method, dims)
    found = cached("projections", key, lambda: _saved_points(path, choice, method, dims))
    *shown, note, whole_note = found
    whole_drawn = st.session_state.get("projections.every_row", True)
    if whole_note and whole_drawn and st.session_state.get("projections.compare") in (None, "none"):
        return (*shown, whole_note)  # drawn whole by the big map (._everyrow)
    return (*shown, note)


def _saved_points(path: str, choice: VectorChoice, method: str | None, dims: int):
    from explorer.server import limits
    from explorer.ui.compute import open_store, store_rows

    corpus = open_store(path)
    saved = saved_map(path, method, choice) if method and dims == 2 else None
    if saved is not None:
        rows, note = saved.shown, saved.note
    else:
        rows, note = limits.sample_points(len(corpus))
        if note and method:
            note += (
                f" It is fitted now on the sample; the command explorer project "
                f"{Path(path).name} --method {method} --pooling {choice.pooling} "
                f"--layer {choice.layers} saves a map of every row, drawn at once."
            )
    frame = store_rows(path, tuple(rows.tolist()))
    texts = tuple(frame[corpus.text_column].astype(str))
    column = corpus.label_column
    labels = tuple(frame[column].astype(str)) if column else None
    points = StorePoints(
        path, tuple(rows.tolist()), choice, saved=method if saved is not None else None
    )
    # the note when the big map draws every row of the saved map: when it has more than these
    whole_note = saved.whole_note if saved is not None and len(saved.rows) > len(rows) else None
    return points, texts, labels, column or "Label", note, whole_note
