"""The vocabulary as a map: every piece of the input embedding table in 2-D (PCA), each with its
kind, and a piece's nearest pieces in that static table.

Kinds (:data:`KINDS`): ``special`` (the tokenizer's special tokens), ``number`` (digits only),
``punctuation`` (punctuation and symbols only), ``continuation`` (a piece that continues a word:
WordPiece's ``##`` pieces, or in byte-level BPE a piece without the word-start mark ``Ġ``, or in
SentencePiece without ``▁``), else ``whole word``. The id is kept too: WordPiece vocabularies
are roughly ordered by frequency, so the id is a proxy for it. Computed once per model
(:func:`vocabulary_map` is cached on the model object).
"""

from __future__ import annotations

import threading
import unicodedata
import weakref

import numpy as np
import pandas as pd

KINDS = ("whole word", "continuation", "special", "number", "punctuation")

_MAPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def piece_kind(piece: str, special: bool = False) -> str:
    """The kind of one vocabulary ``piece`` (see the module)."""
    if special:
        return "special"
    continuation = piece.startswith("##")
    body = piece[2:] if continuation else piece
    if body[:1] in ("Ġ", "▁"):
        body = body[1:]
    if body and body.isdigit():
        return "number"
    if body and all(unicodedata.category(c)[0] in "PS" for c in body):
        return "punctuation"
    return "continuation" if continuation else "whole word"


def _kinds(model) -> list[str]:
    tokenizer = model.tokenizer
    pieces = tokenizer.convert_ids_to_tokens(list(range(model.vocab_size)))
    specials = set(tokenizer.all_special_ids)
    marked = any(str(p).startswith(("Ġ", "▁")) for p in pieces[:5000])
    kinds = []
    for i, piece in enumerate(pieces):
        piece = str(piece)
        kind = piece_kind(piece, i in specials)
        if marked and kind == "whole word" and not piece.startswith(("Ġ", "▁")):
            kind = "continuation"  # BPE/SentencePiece: no word-start mark
        kinds.append(kind)
    return kinds


def embedding_table(model) -> np.ndarray:
    """The input embedding matrix ``(vocabulary, hidden)`` float32 (rows past the tokenizer's
    vocabulary, padding of the table, left out)."""
    weight = model.encoder.get_input_embeddings().weight.detach()
    return weight[: model.vocab_size].float().numpy()


def vocabulary_map(model) -> pd.DataFrame:
    """Every piece: ``id``, ``piece``, ``kind`` and ``x``, ``y``, the first two principal
    components of the input embedding table (centred); ``attrs["variance"]`` holds the
    fractions of the table's variance along those two axes. Cached once per model; the table
    is shared: do not change it."""
    with _LOCK:
        cached = _MAPS.get(model)
        if cached is not None:
            return cached
    table = embedding_table(model).astype(np.float64)
    centred = table - table.mean(axis=0)
    values, vectors = np.linalg.eigh(centred.T @ centred)  # ascending: the last two are the top
    total = float(np.clip(values, 0, None).sum())
    shares = (float(values[-1]) / total, float(values[-2]) / total) if total > 0 else (0.0, 0.0)
    xy = centred @ vectors[:, [-1, -2]]
    pieces = model.tokenizer.convert_ids_to_tokens(list(range(len(table))))
    frame = pd.DataFrame(
        {
            "id": np.arange(len(table)),
            "piece": [str(p) for p in pieces],
            "kind": _kinds(model),
            "x": xy[:, 0].astype(np.float32),
            "y": xy[:, 1].astype(np.float32),
        }
    )
    frame.attrs["variance"] = shares
    with _LOCK:
        _MAPS[model] = frame
    return frame


def static_neighbours(model, piece: str, k: int = 10) -> list[tuple[str, float]]:
    """The ``k`` pieces whose input embeddings have the highest cosine with ``piece``'s (itself
    left out), most similar first. ``ValueError`` for a piece not in the vocabulary."""
    vocab = model.tokenizer.get_vocab()
    if piece not in vocab:
        raise ValueError(
            f"{piece!r} is not a piece of this model's vocabulary (it has {len(vocab):,})."
        )
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, not {k!r}.")
    table = embedding_table(model)
    norms = np.linalg.norm(table, axis=1)
    norms[norms == 0] = 1.0
    index = vocab[piece]
    cosines = table @ table[index] / (norms * norms[index])
    cosines[index] = -np.inf
    best = np.argsort(-cosines, kind="stable")[:k]
    pieces = model.tokenizer.convert_ids_to_tokens(best.tolist())
    return [(str(p), float(cosines[i])) for p, i in zip(pieces, best, strict=True)]


def contextual_neighbours(model, text: str, piece: str, k: int = 10) -> pd.DataFrame:
    """The other tokens of ``text`` nearest to the first occurrence of ``piece`` in it, by the
    cosine of their last-layer vectors, beside the cosine of the same two pieces in the static
    input table: what context adds. Columns ``position``, ``token``, ``contextual``,
    ``static``; at most ``k`` rows, most similar in context first. ``ValueError`` when the
    text's tokens do not hold ``piece`` (naming those that are there)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, not {k!r}.")
    tokenization = model.tokenize(text)
    tokens = tokenization.tokens
    if piece not in tokens:
        kept = (t for t, s in zip(tokens, tokenization.special, strict=True) if not s)
        listed = ", ".join(dict.fromkeys(kept))
        raise ValueError(f"{piece!r} is not among the text's pieces: {listed}")
    at = tokens.index(piece)
    states = model.hidden_states(text)[-1].astype(np.float64)
    table = embedding_table(model).astype(np.float64)
    ids = np.asarray(tokenization.ids)

    def cosines(vectors: np.ndarray, target: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(target)
        return vectors @ target / np.where(norms == 0, 1.0, norms)

    contextual = cosines(states, states[at])
    static = cosines(table[ids], table[ids[at]])
    others = [i for i in range(len(tokens)) if i != at and not tokenization.special[i]]
    order = sorted(others, key=lambda i: -contextual[i])[:k]
    return pd.DataFrame(
        {
            "position": order,
            "token": [tokens[i] for i in order],
            "contextual": contextual[order].astype(np.float32),
            "static": static[order].astype(np.float32),
        }
    )
