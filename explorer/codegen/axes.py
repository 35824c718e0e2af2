""" "Show code" for custom axes: the map's vectors, the axis ends, then two dot products.

The vectors are computed by the Projections page's own snippet (sentence vectors or word
occurrences, :mod:`explorer.codegen.projections`), cut before its projection; the axis ends
are embedded on their own the same way (:func:`explorer.maps._axes.text_vector` /
:func:`explorer.maps._axes.word_vector`). The program leaves ``coords`` ``(n, 2)`` behind, equal
to :func:`explorer.maps._axes.custom_axes` (tested within 1e-4).
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.codegen import literal
from explorer.codegen.projections import projection_snippet, word_projection_snippet
from explorer.layers import Layers, layers_label
from explorer.model.ref import ModelRef
from explorer.pooling import POOLING_LABELS

PROJECTION_START = "from sklearn.decomposition import PCA\n"
"""First line of the PCA part of a projections snippet: everything before it computes the
vectors."""


def vectors_program(
    ref: ModelRef,
    texts: Sequence[str],
    pooling: str | None = "mean",
    layers: Layers = "last",
    *,
    word: str | None = None,
    spans: Sequence[tuple[int, int, int]] | None = None,
) -> str:
    """A program computing ``vectors`` ``(n, d)`` as the Projections page does, and
    ``point_texts`` (the text of each point), without any projection.

    Sentence maps (``word`` None): one vector per text under ``pooling`` and ``layers``, and
    a helper ``sentence_vectors(list_of_texts)``. Word maps: one vector per occurrence
    (``spans`` = ``(text_index, char_start, char_end)``), and ``word_vector(text, start, end)``.
    """
    if word is None:
        full = projection_snippet(ref, texts, pooling or "mean", layers)
        points = "point_texts = texts\n"
    else:
        if spans is None:
            raise ValueError("A word map's snippet needs the occurrences' spans.")
        full = word_projection_snippet(ref, texts, spans, word, layers)
        points = "point_texts = [texts[t] for t, _, _ in occurrences]\n"
    body = full[: full.rindex(PROJECTION_START)]
    return body[body.index("\n") + 1 :] + points  # the projection's header line dropped


def _header(what: str, pooling: str | None, layers: Layers, word: str | None) -> str:
    points = (
        f"occurrences of {word!r}" if word is not None else POOLING_LABELS.get(pooling, pooling)
    )
    return f"# {what} · {points} · {layers_label(layers)}\n"


def _ends(names: Sequence[str], word: str | None) -> str:
    listed = ", ".join(literal(n) for n in names)
    if word is None:
        return (
            "# Each axis end is embedded on its own, like the points.\n"
            f"ends = sentence_vectors([{listed}]).numpy().astype(np.float64)\n"
        )
    return (
        "# Each axis end is a word embedded on its own (the word is the whole text).\n"
        f"ends = np.stack([word_vector(w, 0, len(w)).numpy() for w in [{listed}]])"
        ".astype(np.float64)\n"
    )


def axes_snippet(
    ref: ModelRef,
    texts: Sequence[str],
    x_ends: tuple[str, str],
    y_ends: tuple[str, str] | None = None,
    pooling: str | None = "mean",
    layers: Layers = "last",
    *,
    word: str | None = None,
    spans: Sequence[tuple[int, int, int]] | None = None,
) -> str:
    """A runnable program: the map's vectors, the axis ends ``x_ends`` (A, B) and ``y_ends``
    (C, D, or ``None`` for the first principal component of the rest), then
    ``coords = [vectors @ x_direction, vectors @ y_direction]``, printing the first points.
    ``word``/``spans`` as in :func:`vectors_program`."""
    names = [*x_ends, *(y_ends or ())]
    if y_ends is not None:
        y_part = (
            "# y: from C to D, made perpendicular to x (its part along x removed)\n"
            "y_raw = unit(ends[3] - ends[2])\n"
            "y_direction = unit(y_raw - (y_raw @ x_direction) * x_direction)\n"
            "print(f'cosine of C -> D with x before: {y_raw @ x_direction:.4f}')\n"
        )
    else:
        y_part = (
            "# y: the first principal component of what x leaves\n"
            "rest = X - np.outer(X @ x_direction, x_direction)\n"
            "rest -= rest.mean(axis=0)\n"
            "y_direction = np.linalg.svd(rest, full_matrices=False)[2][0]\n"
            "y_direction = unit(y_direction - (y_direction @ x_direction) * x_direction)\n"
            "if y_direction[np.argmax(np.abs(y_direction))] < 0:  # a fixed sign\n"
            "    y_direction = -y_direction\n"
        )
    return (
        _header("Custom axes", pooling, layers, word)
        + vectors_program(ref, texts, pooling, layers, word=word, spans=spans)
        + "\n"
        + _ends(names, word)
        + "X = vectors.astype(np.float64)\n\n\n"
        "def unit(v):\n"
        "    return v / np.linalg.norm(v)\n\n\n"
        "# x: from A to B. A coordinate is a plain dot product with the unit direction.\n"
        "x_direction = unit(ends[1] - ends[0])\n"
        + y_part
        + "coords = np.stack([X @ x_direction, X @ y_direction], axis=1)  # (points, 2)\n"
        "for text, (x, y) in list(zip(point_texts, coords))[:5]:\n"
        "    print(f'{x:9.4f} {y:9.4f}  {text[:60]}')\n"
    )
