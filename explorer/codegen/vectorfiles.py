""" "Show code" for uploaded vectors (:mod:`explorer.data.vectorfiles`): read the same files the
same way, then the Projections page's projection or the Similarity page's search.

The files are read as the page read them: ``numpy.load(..., allow_pickle=False)`` with
``pandas.read_csv`` (every cell a string), or ``pandas.read_parquet``; rows without text are
left out with their vectors, and beyond the page's row limit the same random sample is kept
(:func:`explorer.data.sampling.sample_points`). No model runs, except to embed a typed query.
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.choice import VectorChoice, vector_choice
from explorer.codegen import literal, model_preamble
from explorer.codegen.projections import DEFAULT_PARAMS, _projection_block, method_title
from explorer.codegen.similarity import _pooled_function
from explorer.data.uploads import NO_LABEL
from explorer.data.vectorfiles import UploadedVectors
from explorer.layers import Layers, layers_label
from explorer.maps import ProjectionParams
from explorer.model.ref import ModelRef

COSINE = (
    "def cosine(a, b):\n"
    '    """Cosine similarity of the rows of a (n, d) and b (m, d): (n, m)."""\n'
    "    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)\n"
    "    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)\n"
    "    return np.clip(a.astype(np.float64) @ b.T.astype(np.float64), -1.0, 1.0)\n"
)


def load_block(data: UploadedVectors, files: Sequence[str]) -> str:
    """Snippet lines reading ``files`` (the ``.npy`` and the CSV, or the Parquet file) into
    ``vectors`` ``(n, d)`` float32, ``texts`` and ``labels`` (None without a label column),
    exactly the rows the page kept. Needs ``numpy as np`` and ``pandas as pd`` imported."""
    if data.format == "npy":
        vectors_file, texts_file = (*files, "vectors.npy", "texts.csv")[:2]
        read = (
            f"vectors = np.load({literal(vectors_file)}, allow_pickle=False)"
            ".astype(np.float32)  # (rows, dim)\n"
            f"frame = pd.read_csv({literal(texts_file)}, dtype=str, keep_default_na=False, "
            "skipinitialspace=True)\n"
            "frame.columns = frame.columns.str.strip()  # (add sep=';' for a semicolon file)\n"
        )
    else:
        parquet_file = (*files, "vectors.parquet")[0]
        read = (
            f"frame = pd.read_parquet({literal(parquet_file)})\n"
            f"vectors = np.stack(frame[{literal(data.vector_column)}].to_numpy())"
            ".astype(np.float32)  # (rows, dim)\n"
        )
    cells = "frame[{}].fillna('').astype(str).str.strip()"
    lines = read + f"text = {cells.format(literal(data.text_column))}\n"
    if data.dropped:
        lines += (
            "keep = (text != '').to_numpy()  # rows without text are left out, with their vectors\n"
            "vectors, frame, text = vectors[keep], frame[keep], text[keep]\n"
        )
    if data.sampled:
        lines += (
            f"# The page keeps at most {data.max_rows:,} rows: the same random sample.\n"
            f"rows = np.sort(np.random.default_rng({data.seed}).choice(len(vectors), "
            f"size={data.max_rows}, replace=False))\n"
            "vectors, frame, text = vectors[rows], frame.iloc[rows], text.iloc[rows]\n"
        )
    lines += "texts = text.tolist()\n"
    if data.label_column is None:
        return lines + "labels = None\n"
    return (
        lines + f"labels = {cells.format(literal(data.label_column))}"
        f".replace('', {literal(NO_LABEL)}).tolist()\n"
    )


def projection_snippet(
    data: UploadedVectors,
    files: Sequence[str],
    params: ProjectionParams = DEFAULT_PARAMS,
) -> str:
    """A runnable program: the uploaded vectors read from ``files``, then the projection
    ``params`` the Projections page drew (:meth:`ProjectionParams.as_used_by`), printing its
    numbers. Leaves ``vectors`` and ``coords`` behind."""
    header = (
        f"# Uploaded vectors · {method_title(params)}\nimport numpy as np\nimport pandas as pd\n\n"
    )
    return (
        header
        + load_block(data, files)
        + "print('vectors:', vectors.shape)\n\n"
        + _projection_block(params, len(data))
    )


def row_search_snippet(data: UploadedVectors, files: Sequence[str], row: int, k: int) -> str:
    """A runnable program printing the ``k`` rows most cosine-similar to row ``row`` (0-based,
    among the kept rows) of the uploaded vectors, the row itself left out."""
    return (
        "# Search uploaded vectors with one of their rows\n"
        "import numpy as np\nimport pandas as pd\n\n"
        + load_block(data, files)
        + "\n\n"
        + COSINE
        + f"\n\nquery_row, k = {int(row)}, {int(k)}\n"
        "scores = cosine(vectors[query_row : query_row + 1], vectors)[0]\n"
        'order = [i for i in np.argsort(-scores, kind="stable") if i != query_row]\n'
        "print('query:', texts[query_row])\n"
        "for rank, i in enumerate(order[:k], start=1):\n"
        '    print(f"{rank}. {scores[i]:.4f}  {texts[i]}")\n'
    )


def query_search_snippet(
    data: UploadedVectors,
    files: Sequence[str],
    ref: ModelRef,
    query: str,
    pooling: VectorChoice | str = "mean",
    layers: Layers | None = None,
    k: int = 5,
) -> str:
    """A runnable program embedding ``query`` with ``ref`` (``pooling`` per layer, then
    ``layers``, or one :class:`explorer.VectorChoice`) and printing the ``k`` uploaded rows
    most cosine-similar to it."""
    choice = vector_choice(pooling, layers)
    pooling, layers = choice.pooling, choice.layers
    return (
        f"# Search uploaded vectors with a query embedded by {ref.label()}\n"
        f"# ({pooling} pooling · {layers_label(layers)}): this only makes sense if the\n"
        "# vectors came from the same model, pooling and layers.\n"
        "import numpy as np\nimport pandas as pd\n"
        + model_preamble(ref)
        + "\n"
        + _pooled_function([choice])
        + "\n\n"
        + load_block(data, files)
        + f"query, k = {literal(query)}, {int(k)}\n"
        f"scores = cosine(pooled_vectors([query])[{pooling!r}], vectors)[0]\n"
        'top = np.argsort(-scores, kind="stable")[:k]\n'
        "for rank, i in enumerate(top, start=1):\n"
        '    print(f"{rank}. {scores[i]:.4f}  {texts[i]}")\n'
    )
