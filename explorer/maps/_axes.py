"""Custom axes: place every point by where it lies along a direction you name.

x is the direction from A to B (for example from "money" to "river"): each point's x is the
plain dot product of its vector with the unit vector ``(B - A) / |B - A|``. Nothing is
centred or rescaled, so ``coords[:, 0] == vectors @ x_direction`` exactly; a point further
along "river" than "money" has a larger x.

y is either a second named direction C -> D, *orthogonalised against x* (its component along
x removed, then made unit length) so the two axes are perpendicular and a point's x and y
measure different things; or, without a second pair, the first principal component of the
vectors once their x component is removed (the largest spread left that x does not explain).
y is again a plain dot product: ``coords[:, 1] == vectors @ y_direction``.

Where A and B come from: :func:`text_vector` embeds a text on its own with the same pooling
and layers as a sentence map's points; :func:`word_vector` embeds a word on its own (the
word alone is the whole text) with the same layers and subword mode as a word-occurrence
map's points. Any vector of the right width works, e.g. one of the points themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PARALLEL_BELOW = 1e-6
"""A second direction whose part orthogonal to x is shorter than this (relative to its
length) is refused as parallel to x."""


@dataclass(frozen=True)
class Axes:
    """Coordinates on custom axes.

    ``coords`` ``(n, 2)`` float64: ``vectors @ x_direction`` and ``vectors @ y_direction``;
    ``x_direction``/``y_direction`` ``(d,)`` unit vectors, perpendicular; ``labels`` the two
    axis titles (plain text, e.g. ``("money → river", "first principal component of the
    rest")``); ``y_from_pair`` whether y came from a named pair; ``xy_cosine`` the cosine
    between the named y direction and x *before* orthogonalisation (``None`` for the
    principal component): near 1 means the second pair mostly repeated the first.
    """

    coords: np.ndarray
    x_direction: np.ndarray
    y_direction: np.ndarray
    labels: tuple[str, str]
    y_from_pair: bool
    xy_cosine: float | None = None

    def project(self, vectors: np.ndarray) -> np.ndarray:
        """More vectors ``(m, d)`` (or one ``(d,)``) on the same axes: ``(m, 2)`` dot products
        (e.g. the axis ends themselves, to mark them on the figure)."""
        X = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
        if X.shape[1] != self.x_direction.shape[0]:
            raise ValueError(
                f"Expected vectors of width {self.x_direction.shape[0]}, got shape {X.shape}."
            )
        return np.stack([X @ self.x_direction, X @ self.y_direction], axis=1)


def _vector(value, d: int, what: str) -> np.ndarray:
    v = np.asarray(value, dtype=np.float64)
    if v.ndim == 2 and v.shape[0] == 1:
        v = v[0]
    if v.ndim != 1 or v.shape[0] != d:
        raise ValueError(f"The {what} vector must have the points' width {d}, got shape {v.shape}.")
    if not np.isfinite(v).all():
        raise ValueError(f"The {what} vector contains NaN or infinite values.")
    return v


def _direction(start: np.ndarray, end: np.ndarray, axis: str) -> np.ndarray:
    direction = end - start
    norm = float(np.linalg.norm(direction))
    if norm == 0 or norm <= 1e-12 * max(np.linalg.norm(start), np.linalg.norm(end), 1.0):
        raise ValueError(
            f"The two ends of the {axis} axis have the same vector, so there is no direction "
            "between them. Choose two different words or texts."
        )
    return direction / norm


def custom_axes(
    vectors: np.ndarray,
    x_from: np.ndarray,
    x_to: np.ndarray,
    y_from: np.ndarray | None = None,
    y_to: np.ndarray | None = None,
    *,
    x_names: tuple[str, str] = ("A", "B"),
    y_names: tuple[str, str] | None = None,
) -> Axes:
    """Coordinates of ``vectors`` ``(n, d)`` on the axes x = ``x_from`` -> ``x_to`` and y =
    ``y_from`` -> ``y_to`` (orthogonalised against x) or the first principal component of
    what x leaves (see the module docstring). The ends are ``(d,)`` vectors; ``x_names`` and
    ``y_names`` name them in the axis titles.

    Raises ``ValueError`` for a zero direction (both ends equal), a y direction parallel to
    x, only one end of y, wrong widths, non-finite values, or fewer than 2 points (the
    principal component needs spread).
    """
    X = np.asarray(vectors, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1:
        raise ValueError(f"Expected vectors (points x dim), got shape {X.shape}.")
    if not np.isfinite(X).all():
        raise ValueError("The vectors contain NaN or infinite values.")
    d = X.shape[1]
    if (y_from is None) != (y_to is None):
        raise ValueError("Give both ends of the y axis, or neither (y is then a principal axis).")
    u = _direction(_vector(x_from, d, "x-axis start"), _vector(x_to, d, "x-axis end"), "x")
    x_label = f"{x_names[0]} → {x_names[1]}"
    if y_from is not None:
        raw = _direction(_vector(y_from, d, "y-axis start"), _vector(y_to, d, "y-axis end"), "y")
        cosine = float(raw @ u)
        rest = raw - cosine * u
        norm = float(np.linalg.norm(rest))
        if norm < PARALLEL_BELOW:
            raise ValueError(
                "The y direction points the same way as the x direction (cosine "
                f"{cosine:.3f}), so it adds no second axis. Choose another pair."
            )
        v = rest / norm
        names = y_names or ("C", "D")
        y_label = f"{names[0]} → {names[1]} (made perpendicular to x)"
        y_from_pair = True
    else:
        if X.shape[0] < 2:
            raise ValueError("The principal axis of y needs at least 2 points.")
        residual = X - np.outer(X @ u, u)
        residual -= residual.mean(axis=0)
        _, _, vt = np.linalg.svd(residual, full_matrices=False)
        v = vt[0]
        v = v - (v @ u) * u  # rounding only: the residuals are already orthogonal to u
        norm = float(np.linalg.norm(v))
        if norm < PARALLEL_BELOW or np.abs(residual).max() == 0:
            raise ValueError(
                "Once x is removed the points have no spread left, so there is no principal "
                "axis for y. Give a second pair of words for y."
            )
        v /= norm
        # A principal axis has no sign of its own: point it so that the largest component
        # is positive (the same map every time).
        if v[np.argmax(np.abs(v))] < 0:
            v = -v
        y_label = "first principal component of the rest"
        cosine = None
        y_from_pair = False
    coords = np.stack([X @ u, X @ v], axis=1)
    return Axes(coords, u, v, (x_label, y_label), y_from_pair, cosine)


def text_vector(model, text: str, pooling="mean", layers=None) -> np.ndarray:
    """The ``(dim,)`` vector of ``text`` embedded on its own under ``pooling`` (an
    :class:`explorer.VectorChoice`, or a pooling name with ``layers`` beside it), exactly as
    a sentence map's points (:func:`explorer.embed_corpus`). Raises ``ValueError`` for an
    empty text."""
    from explorer.embeddings import embed_corpus

    if not text or not text.strip():
        raise ValueError("An axis end needs a word or text; got an empty one.")
    return embed_corpus(model, [text]).sentence(pooling, layers)[0]


def word_vector(model, word: str, layers="last", subwords: str | None = None) -> np.ndarray:
    """The ``(dim,)`` vector of ``word`` embedded on its own (the word alone is the whole
    text) under ``layers`` (an :class:`explorer.VectorChoice`, or a layer choice with
    ``subwords`` beside it), as the points of a word-occurrence map
    (:func:`explorer.word_vectors`). Raises ``ValueError`` for an empty word."""
    from explorer.words import word_vectors

    word = (word or "").strip()
    if not word:
        raise ValueError("An axis end needs a word; got an empty one.")
    _, vectors = word_vectors(model, [word], word, layers, subwords)
    return vectors[0]
