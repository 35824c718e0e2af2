"""Checks shared by the "what to notice" walks (tests/test_notices_agree.py and
tests/test_notices_choices.py): the page's two-decimal rounding, the pairs a sentence names at
an extreme, the special tokens it names, and the Similarity sentence's whole check."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer.layers import layers_label

SPECIAL_LOOKING = re.compile(r"\[[A-Z]{2,5}\]|</?[a-z]{1,5}>")
SENTENCES = (
    ("The team won the match.", "Our side lost the game.", "Bake the bread slowly.")
    + ("It rained all day.", "The striker scored twice.", "Rain is coming tonight."),
    ("A cat.", "A cat!", "A dog.", "Stock prices fell sharply on Monday."),
)
"""Sentence sets for the Similarity sentence: one with distinct pairs, one with near-ties."""


def model_for(request: pytest.FixtureRequest) -> explorer.Model:
    """The model a ``model`` fixture parametrised by fixture names stands for: the bundled
    model itself, or a folder fixture's model loaded."""
    fixture = request.getfixturevalue(request.param)
    return fixture if request.param == "bundled" else explorer.load_model(fixture)


def two(value: float) -> str:
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def upper(matrix) -> np.ndarray:
    """The pairs above the diagonal, row by row (the order of the pair labels)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    return matrix[np.triu_indices(len(matrix), k=1)]


def check_specials(model: explorer.Model, sentence: str) -> None:
    """Every special-looking token a sentence names is one of the model's own."""
    tokenizer = model.tokenizer
    own = {
        getattr(tokenizer, name, None)
        for name in ("cls_token", "sep_token", "bos_token", "eos_token", "pad_token")
    } | {getattr(tokenizer, "unk_token", None), getattr(tokenizer, "mask_token", None)}
    named = set(SPECIAL_LOOKING.findall(sentence))
    assert named <= own, (named - own, sentence)


def tied_pairs(text: str) -> set[tuple[int, int]] | int:
    """The pairs a notice names at an extreme: ``{(1, 5)}``, ``{(1, 5), (2, 3)}``, or a count."""
    counted = re.fullmatch(r"(\d+) (?:tied )?pairs", text)
    if counted:
        return int(counted[1])
    found = re.findall(r"#?(\d+)(?: and | vs #|–)#?(\d+)", text)
    return {(int(a), int(b)) for a, b in found}


def at_extreme(values: np.ndarray, extreme) -> set[tuple[int, int]]:
    n = int(round((1 + np.sqrt(1 + 8 * len(values))) / 2))
    rows, cols = np.triu_indices(n, k=1)
    target = extreme([two(v) for v in values], key=float)
    return {(r + 1, c + 1) for r, c, v in zip(rows, cols, values, strict=True) if two(v) == target}


def check_named(named: set | int, expected: set) -> None:
    assert named == (expected if isinstance(named, set) else len(expected))


def check_similarity_notice(matrices, labels, sentence: str, layers=None, post: str = "") -> None:
    first = next(iter(matrices))
    where = ", ".join(p for p in (layers_label(layers).lower() if layers else "", post) if p)
    assert sentence.startswith(f"Under {labels[first]}" + (f" ({where})" if where else "") + ", ")
    values = upper(matrices[first])
    shown = {two(v) for v in values}
    if len(shown) == 1:
        assert f"every pair of sentences scores {shown.pop()}: this pooling" in sentence
    else:
        found = re.search(
            r", (.+?) (?:are|tie as) the most similar \((\S+)\) and (.+?) "
            r"(?:the least|tie as the least similar) \((\S+)\)\.",
            sentence,
        )
        assert found[2] == max(shown, key=float) and found[4] == min(shown, key=float)
        check_named(tied_pairs(found[1].removeprefix("sentences ")), at_extreme(values, max))
        check_named(tied_pairs(found[3]), at_extreme(values, min))
    flat = [p for p, m in matrices.items() if len({two(v) for v in upper(m)}) == 1]
    said = re.search(r" ([^.]+?) cannot rank the pairs", sentence)
    if len(matrices) > 1 and flat:
        for pooling in flat:
            assert labels[pooling].lower() in said[1].lower()
    else:
        assert said is None
