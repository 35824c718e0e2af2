""" "Show code" for the "Which layer?" page: every layer's vectors and the same probe.

The snippet computes the vectors of every layer (a pooled sentence vector, or the vector of
each text's word) with plain transformers + torch in one pass, then runs the page's
cross-validated probe (standardise, logistic regression, stratified k-fold with the same
seed; one probe per word when the words differ) on each layer, on the labels and on the
control task, and prints what the page's headline says: the best layer and the layers
within noise of it, accuracy mean ± std, its gain over the majority baseline, the embedding
layer's accuracy, the control task's accuracy, selectivity and the most selective layer.

A saved corpus (:func:`stored_probe_snippet`) has no texts to run the model on in the
snippet: it opens the store with :func:`explorer.open_corpus` (the one reader of the store
format), takes the page's rows with :func:`explorer.probing.probe_rows` and runs the same
probe on the stored layers' vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from explorer.codegen import batch_loop, literal, model_preamble
from explorer.codegen.datafile import data_file, inline, read_lines
from explorer.expressions import pooling_expression, subwords_expression
from explorer.model.ref import ModelRef
from explorer.pooling import validate_pooling
from explorer.subwords import validate_subwords

DATA_FILE = "probe_data.json"
"""The file a snippet of more than :data:`explorer.codegen.datafile.INLINE_ROWS` rows reads."""

_IMPORTS = (
    "import numpy as np\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import StratifiedGroupKFold\n"
    "from sklearn.pipeline import make_pipeline\n"
    "from sklearn.preprocessing import StandardScaler\n"
)


def _sentence_features(pooling: str) -> str:
    pooled = pooling_expression(pooling, token_axis=2, separator=",\n" + " " * 16)
    return (
        "def features(texts):\n"
        '    """(layers, texts, hidden): the pooled vectors of every layer, 32 texts a batch."""\n'
        "    parts = []\n"
        + batch_loop()
        + "        hidden = torch.stack(output.hidden_states)  # (layers, batch, tokens, hidden)\n"
        '        mask = batch["attention_mask"].bool()[None, :, :, None]  # padding never counts\n'
        f"        parts.append(\n            {pooled}\n        )\n"
        "    return torch.cat(parts, dim=1).numpy()\n\n\n"
        "stack = features(texts)\n"
        "layers = list(range(len(stack)))  # 0 = embedding output, then each encoder layer\n"
    )


def _word_features(subwords: str) -> str:
    return (
        "def word_vectors(text, start, end):\n"
        '    """(layers, hidden): the word at characters start:end of text at every layer (its\n'
        '    subwords combined)."""\n'
        "    batch = tokenizer(text, truncation=True, return_offsets_mapping=True, "
        'return_tensors="pt")\n'
        '    offsets = batch.pop("offset_mapping")[0].tolist()\n'
        "    with torch.inference_mode():\n"
        "        output = model(**batch, output_hidden_states=True)\n"
        "    tokens = [i for i, (a, b) in enumerate(offsets) if b > a and a < end and b > start]\n"
        "    span = torch.stack(output.hidden_states)[:, 0, tokens]  # (layers, subwords, hidden)\n"
        f"    return {subwords_expression(subwords, 'span', 1)}\n\n\n"
        "stack = np.stack(  # (layers, texts, hidden)\n"
        "    [word_vectors(t, a, b).numpy() for t, (a, b) in zip(texts, spans)], axis=1\n"
        ")\n"
        "layers = list(range(len(stack)))  # 0 = embedding output, then each encoder layer\n"
    )


def probe_snippet(
    ref: ModelRef,
    texts: Sequence[str],
    labels: Sequence[object],
    layer: int,
    mode: str = "mean",
    folds: int = 5,
    random_state: int = 0,
    words: Sequence[str] | None = None,
    spans: Sequence[tuple[int, int]] | None = None,
) -> str:
    """A runnable program: every layer's vectors, then the page's cross-validated probe on
    each; it prints each layer's scores, the page's headline and layer ``layer``'s folds.

    Sentence task (``words=None``): ``mode`` is a pooling. Word task: ``words`` has one
    word per text, ``spans`` the ``(char_start, char_end)`` of the occurrence used in each
    text (from :func:`explorer.words.first_occurrences`) and ``mode`` is a subword mode.
    ``folds`` should be the folds the page used (after any lowering). Leaves ``stack``
    ``(layers, texts, hidden)``, ``scores`` and ``control`` (the control task's) ``(layers,
    folds)`` and ``baseline`` in its namespace.
    """
    texts = list(texts)
    if len(labels) != len(texts):
        raise ValueError(f"Got {len(texts)} texts but {len(labels)} labels.")
    if words is None:
        validate_pooling(mode)
        if inline(len(texts)):
            rows = "".join(
                f"    ({literal(t)}, {literal(str(y))}),\n"
                for t, y in zip(texts, labels, strict=True)
            )
            data = f"rows = [  # (text, label)\n{rows}]\ntexts = [t for t, _ in rows]\n"
            data += "labels = np.array([y for _, y in rows])\n"
        else:
            data = read_lines(DATA_FILE, ["texts", "labels"]) + "labels = np.array(labels)\n"
        data += "groups = np.zeros(len(texts))\n"
        features = _sentence_features(mode)
        what = f"{mode} pooling"
    else:
        validate_subwords(mode)
        if spans is None or len(spans) != len(texts) or len(words) != len(texts):
            raise ValueError("A word task needs one word and one (start, end) span per text.")
        if inline(len(texts)):
            rows = "".join(
                f"    ({literal(t)}, {literal(str(w).strip())}, {int(a)}, {int(b)}, "
                f"{literal(str(y))}),\n"
                for t, w, (a, b), y in zip(texts, words, spans, labels, strict=True)
            )
            data = (
                f"rows = [  # (text, word, first character, end character, label)\n{rows}]\n"
                "texts = [r[0] for r in rows]\n"
                "spans = [(r[2], r[3]) for r in rows]\n"
                "labels = np.array([r[4] for r in rows])\n"
                "groups = np.array([r[1] for r in rows])  # one probe per word\n"
            )
        else:  # spans: (first character, end character) of the word in each text
            data = read_lines(DATA_FILE, ["texts", "words", "spans", "labels"]) + (
                "labels = np.array(labels)\ngroups = np.array(words)  # one probe per word\n"
            )
        features = _word_features(mode)
        what = f"the word's vector ({mode} of its subwords)"
    return (
        f"# Linear probe on every layer: {what}, {int(folds)}-fold cross-validation\n"
        + _IMPORTS
        + model_preamble(ref)
        + "\n"
        + data
        + "\n"
        + features
        + "\n"
        + _probe_loop(folds, random_state, layer)
    )


def probe_data(
    texts: Sequence[str],
    labels: Sequence[object],
    words: Sequence[str] | None = None,
    spans: Sequence[tuple[int, int]] | None = None,
) -> bytes | None:
    """The data file (:data:`DATA_FILE`) :func:`probe_snippet` of these rows reads, or None
    when the program writes them out."""
    if inline(len(texts)):
        return None
    columns = {"texts": list(texts), "labels": [str(y) for y in labels]}
    if words is not None:
        columns["words"] = [str(w).strip() for w in words]
        columns["spans"] = [[int(a), int(b)] for a, b in spans or ()]
    return data_file(columns)


def _probe_loop(folds: int, random_state: int, layer: int, stored: bool = False) -> str:
    """The page's cross-validated probe on every layer of ``stack`` ``(layers, rows, dim)``
    (numbered by ``layers``; a saved corpus's may lack layer 0), ``labels``, ``groups`` (one
    probe per group) and
    ``texts`` (identical texts share a fold), on the labels and on the control task: leaves
    ``scores`` and ``control`` ``(layers, folds)`` and ``baseline``, prints every layer and the
    page's headline, then layer ``layer``'s folds."""
    embedding = (
        'print(f"layer 0, before any context: {accuracy[0]:.2f}; the context-mixing layers add "\n'
        '      f"{accuracy[best] - accuracy[0]:+.2f}")\n'
    )
    if stored:  # a saved corpus may keep only some layers
        embedding = "if layers[0] == 0:\n" + "".join(
            "    " + line for line in embedding.splitlines(True)
        )
    return (
        f"folds, seed = {int(folds)}, {int(random_state)}\n"
        'same = np.array([" ".join(t.lower().split()) for t in texts])  # case, spacing ignored\n'
        "\n\n"
        "def cross_validate(X, targets):\n"
        '    """Accuracy of each fold on targets (folds stratified by the real labels, identical\n'
        '    texts never in both training and test)."""\n'
        "    correct, tested = np.zeros(folds), np.zeros(folds)\n"
        "    for group in dict.fromkeys(groups.tolist()):  # each group is split and probed alone\n"
        "        rows_g = np.flatnonzero(groups == group)\n"
        "        y = targets[rows_g]\n"
        "        splitter = StratifiedGroupKFold(folds, shuffle=True, random_state=seed)\n"
        "        splits = splitter.split(X[rows_g], labels[rows_g], same[rows_g])\n"
        "        for k, (train, test) in enumerate(splits):\n"
        "            if len(set(y[train])) < 2:  # a single class to learn: guess it\n"
        "                predicted = np.full(len(test), y[train][0])\n"
        "            else:\n"
        "                probe = make_pipeline(\n"
        "                    StandardScaler(),\n"
        "                    LogisticRegression(max_iter=2000, random_state=seed),\n"
        "                )\n"
        "                probe.fit(X[rows_g[train]], y[train])\n"
        "                predicted = probe.predict(X[rows_g[test]])\n"
        "            correct[k] += (predicted == y[test]).sum()\n"
        "            tested[k] += len(test)\n"
        "    return correct / tested\n"
        "\n\n"
        "# control task (Hewitt and Liang 2019): each text a random label, the same wherever it\n"
        "# occurs, drawn from its group's label distribution\n"
        "rng = np.random.default_rng(seed)\n"
        "random_labels = np.empty(len(labels), dtype=object)\n"
        "for group in dict.fromkeys(groups.tolist()):\n"
        "    rows_g = np.flatnonzero(groups == group)\n"
        "    classes, counts = np.unique(labels[rows_g], return_counts=True)\n"
        "    keys = list(dict.fromkeys(same[rows_g].tolist()))\n"
        "    draws = rng.choice(classes, size=len(keys), p=counts / counts.sum())\n"
        "    drawn = dict(zip(keys, draws))\n"
        "    random_labels[rows_g] = [drawn[key] for key in same[rows_g]]\n"
        "\n"
        "majority = 0  # rows of each group's most common label\n"
        "for group in dict.fromkeys(groups.tolist()):\n"
        "    majority += np.unique(labels[groups == group], return_counts=True)[1].max()\n"
        "baseline = majority / len(labels)  # always guess the most common label\n"
        "\n"
        "scores = np.array([cross_validate(X, labels) for X in stack])  # (layers, folds)\n"
        "control = np.array([cross_validate(X, random_labels) for X in stack])\n"
        "accuracy, spread = scores.mean(axis=1), scores.std(axis=1)\n"
        "selectivity = accuracy - control.mean(axis=1)  # accuracy - control task's accuracy\n"
        "for k, layer in enumerate(layers):\n"
        '    print(f"layer {layer}: accuracy {accuracy[k]:.2f} ± {spread[k]:.2f}, control task "\n'
        '          f"{control[k].mean():.2f}, selectivity {selectivity[k]:+.2f}")\n'
        "\n"
        "# the page's headline, two decimals (equal accuracies: the lower layer)\n"
        "best, most = int(np.argmax(accuracy)), int(np.argmax(selectivity))\n"
        "floor = accuracy[best] - spread[best]  # error bars overlapping the best layer's\n"
        "close = [layer for k, layer in enumerate(layers) if accuracy[k] + spread[k] >= floor]\n"
        'print(f"best: layer {layers[best]} (within noise: layers {close}), accuracy "\n'
        '      f"{accuracy[best]:.2f} ± {spread[best]:.2f}, "\n'
        '      f"{accuracy[best] - baseline:+.2f} over always guessing the most common label "\n'
        '      f"({baseline:.2f})")\n'
        + embedding
        + 'print(f"control task at layer {layers[best]}: {control[best].mean():.2f}, "\n'
        '      f"selectivity {selectivity[best]:+.2f}; most selective: layer {layers[most]} "\n'
        '      f"({selectivity[most]:+.2f})")\n'
        + f"shown = layers.index({int(layer)})  # the layer chosen on the page\n"
        'print(f"layer {layers[shown]}, each fold: {np.round(scores[shown], 4)}")\n'
    )


def stored_probe_snippet(
    store: str,
    column: str,
    label_column: bool,
    layer: int,
    pooling: str = "mean",
    folds: int = 5,
    random_state: int = 0,
    limit: int = 2000,
) -> str:
    """A runnable program: the page's probe on every stored layer of a saved corpus; it
    prints each layer's scores, the page's headline and layer ``layer``'s folds.

    ``store`` is the store folder's name (written as ``"path/to/<store>"``: a snippet never
    shows where the server keeps its stores), ``column`` the probed column (``label_column``:
    it is the store's label column, else one of its metadata columns), ``pooling`` a pooling
    whose parts are stored, ``limit`` and ``random_state`` the sample the page drew
    (:func:`explorer.probing.probe_rows`), ``folds`` the folds it used (after any lowering).
    Leaves ``stack`` ``(layers, rows, dim)``, ``scores`` ``(layers, folds)`` and ``baseline``
    in its namespace.
    """
    validate_pooling(pooling)
    folder = "path/to/" + (PurePath(store).name or "corpus")
    values = (
        f"corpus.labels  # the label column, {column!r}"
        if label_column
        else f"corpus.metadata[{column!r}].tolist()"
    )
    title = (
        f"# Linear probe on every stored layer of a saved corpus: {pooling} pooling, "
        f"{int(folds)}-fold cross-validation\n"
    )
    imports = _IMPORTS + "\nimport explorer\nfrom explorer.probing import probe_rows\n\n"
    return (
        title
        + imports
        + f"corpus = explorer.open_corpus({folder!r})  # the folder `explorer embed --out` wrote\n"
        f"values = {values}\n"
        f"# rows with a value; beyond {int(limit):,} of them, a random sample stratified by label\n"
        f"chosen = probe_rows(values, limit={int(limit)}, seed={int(random_state)})\n"
        "labels = np.array(chosen.labels)\n"
        "groups = np.zeros(len(labels))\n"
        "texts = [corpus.texts[i] for i in chosen.rows]\n\n"
        f"pooling = {pooling!r}\n"
        "layers = list(corpus.layers)  # the layers it keeps; 0 = embedding output\n"
        "stack = np.stack(  # (layers, rows, dim): stored, no model\n"
        "    [corpus.sentence(pooling, layer, rows=chosen.rows) for layer in layers]\n"
        ")\n\n" + _probe_loop(folds, random_state, layer, stored=True)
    )
