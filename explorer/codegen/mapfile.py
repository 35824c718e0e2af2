"""The lines a Projections "Show code" program ends with: the map drawn with plotly as the page
colours it (a numeric column on a colour scale, categories with a legend), the density
contours when the page draws them, and the map written as one standalone HTML file. They print
the numbers the page's sentence reads: for a numeric column how much a point and its map
neighbours differ in it, against two random points; for labels the share of map neighbours
with a point's label, against the share if the labels were shuffled, and each label's."""

from __future__ import annotations

import math
from collections.abc import Sequence

from explorer.codegen import literal

PER_LINE = 8
"""Values written per line of the program."""


def _values_literal(values: Sequence, numeric: bool) -> str:
    """``values`` as a Python list literal, :data:`PER_LINE` a line; NaN as ``float('nan')``."""
    if numeric:
        cells = [
            "float('nan')" if not math.isfinite(float(v)) else literal(round(float(v), 6))
            for v in values
        ]
    else:
        cells = [literal(str(v)) for v in values]
    lines = [", ".join(cells[i : i + PER_LINE]) for i in range(0, len(cells), PER_LINE)]
    return "[\n" + "".join(f"    {line},\n" for line in lines) + "]"


CONTOURS = (
    "fig.add_trace(go.Histogram2dContour(  # where the points crowd, under them\n"
    "    x=coords[:, 0], y=coords[:, 1], ncontours=6, showscale=False, hoverinfo='skip',\n"
    "    colorscale=[[0, 'rgba(31,119,180,0)'], [1, 'rgba(31,119,180,0.45)']],\n"
    "))\n"
)

NUMERIC = (
    "has = [i for i, value in enumerate(values) if value == value]  # NaN: no value\n"
    "fig.add_trace(go.Scatter(\n"
    "    x=coords[has, 0], y=coords[has, 1], mode='markers', name=name,\n"
    "    text=[hover[i] for i in has], hoverinfo='text', marker=dict(\n"
    "        color=[values[i] for i in has], colorscale='Viridis', colorbar=dict(title=name)\n"
    "    ),\n"
    "))\n"
    "empty = [i for i, value in enumerate(values) if value != value]\n"
    "if empty:  # grey, outside the colour scale\n"
    "    fig.add_trace(go.Scatter(\n"
    "        x=coords[empty, 0], y=coords[empty, 1], mode='markers', name='no value',\n"
    "        text=[hover[i] for i in empty], hoverinfo='text', marker=dict(color='lightgrey'),\n"
    "    ))\n"
)

CATEGORIES = (
    "for category in dict.fromkeys(values):  # one trace (and legend entry) per category\n"
    "    rows = [i for i, value in enumerate(values) if value == category]\n"
    "    fig.add_trace(go.Scatter(\n"
    "        x=coords[rows, 0], y=coords[rows, 1], mode='markers', name=category,\n"
    "        text=[hover[i] for i in rows], hoverinfo='text',\n"
    "    ))\n"
)

AGREEMENT = (
    "\n# How much the column follows the map: a point and its 5 nearest points on the map,\n"
    "# against two random points (NaN values left out).\n"
    "from sklearn.neighbors import NearestNeighbors\n\n"
    "x = np.array(values, dtype=float)\n"
    "ok = ~np.isnan(x)\n"
    "xs, n = x[ok], int(ok.sum())\n"
    "k = min(5, n - 1)\n"
    "_, found = NearestNeighbors(n_neighbors=k + 1).fit(coords[ok]).kneighbors(coords[ok])\n"
    "near = np.abs(xs[found[:, 1:]] - xs[:, None]).mean()  # column 0 is each point itself\n"
    "far = np.abs(xs[:, None] - xs[None, :]).sum() / (n * (n - 1))\n"
    "print(f'neighbours differ by {near:.3g}, random points by {far:.3g} ({near / far:.0%})')\n"
)

LABEL_AGREEMENT = (
    "\n# How well the labels follow the map: the share of each point's 5 nearest points on the\n"
    "# map with its label, against the share if the labels were shuffled.\n"
    "from sklearn.neighbors import NearestNeighbors\n\n"
    "labels = np.array([str(value) for value in values])\n"
    "n = len(labels)\n"
    "k = min(5, n - 1)\n"
    "_, found = NearestNeighbors(n_neighbors=k + 1).fit(coords).kneighbors(coords)\n"
    "same = (labels[found[:, 1:]] == labels[:, None]).mean(axis=1)  # column 0: the point\n"
    "counts = np.unique(labels, return_counts=True)[1]\n"
    "shuffled = (counts * (counts - 1)).sum() / (n * (n - 1))\n"
    "print(f'{same.mean():.0%} of map neighbours share the label ({shuffled:.0%} if shuffled)')\n"
    "for label in dict.fromkeys(labels):\n"
    "    print(f'  {label}: {same[labels == label].mean():.0%}')\n"
)


def map_file_block(
    name: str,
    values: Sequence | None,
    *,
    numeric: bool,
    contours: bool,
    word: bool = False,
    file_name: str = "map.html",
    from_data: bool = False,
) -> str:
    """Lines that follow a projection program (which leaves ``coords`` and ``texts``, and
    ``occurrences`` for a ``word`` map): the map coloured by ``values`` (one per point, named
    ``name``; numbers when ``numeric``, else categories; None: one colour), with
    ``contours``, written to ``file_name`` with plotly.js inside; for numbers, the neighbour
    and random differences the page's sentence reads. A program cut to its first texts keeps
    the values of the points it has. With ``from_data`` the values are not written out: the
    program read them with its texts (``data['values']``, :mod:`explorer.codegen.datafile`)."""
    hover = "[texts[t] for t, _, _ in occurrences]" if word else "list(texts)"
    lines = (
        "\n# The map as one HTML file (plotly.js inside: it opens offline, hover included)\n"
        "import plotly.graph_objects as go\n\n"
        f"hover = {hover}\n"
    )
    if values is not None:
        lines += f"name = {literal(str(name))}\n" + (
            "values = data['values']  # read with the texts\n"
            if from_data
            else f"values = {_values_literal(values, numeric)}[: len(coords)]\n"
        )
    lines += "fig = go.Figure()\n" + (CONTOURS if contours else "")
    if values is None:
        lines += (
            "fig.add_trace(go.Scatter(\n"
            "    x=coords[:, 0], y=coords[:, 1], mode='markers', text=hover, hoverinfo='text'\n"
            "))\n"
        )
    else:
        lines += NUMERIC if numeric else CATEGORIES
    lines += (
        f"fig.write_html({literal(file_name)}, include_plotlyjs=True)\n"
        f"print('wrote {file_name}:', fig.data[-1].type, 'traces:', len(fig.data))\n"
    )
    if values is not None:
        lines += AGREEMENT if numeric else LABEL_AGREEMENT
    return lines
