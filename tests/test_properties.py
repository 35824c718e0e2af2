"""Property-based tests (hypothesis) over the public API of ``explorer``.

Whatever text comes in (control characters, zero-width and bidi marks, lone surrogates, emoji,
CJK, right-to-left scripts, combining marks, nothing at all, whitespace only, 20,000+
characters, many texts at once), every call returns finite float32 arrays of the documented
shape or raises ``ValueError`` with a message; nothing else escapes.

Budget: the cheap properties run on the ``tiny`` random BERT with 200 examples each; those
that run the real ``bundled`` model, or long texts, run 10-40. Every property is derandomized
(the same examples on every run, so CI is reproducible) and keeps no example database
(hypothesis still caches Unicode tables in the git-ignored ``.hypothesis/``).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

import explorer
from explorer.choice import VectorChoice
from explorer.data import corpora
from explorer.layers import layer_indices, validate_layers
from explorer.model.tokenization import MAX_CHARS, clean_text

CHEAP = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)
COSTLY = settings(CHEAP, max_examples=40)
LONG = settings(CHEAP, max_examples=20)


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """One intra-op thread while this module runs, restored afterwards.

    Forward passes here are tiny: on a busy 2-core machine, two OpenMP threads spinning
    against other processes make each one ~30 times slower than a single thread.
    """
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# -- strategies ---------------------------------------------------------------------------

ZERO_WIDTH_AND_BIDI = (
    "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u00ad\u034f\u061c"  # zero-width, BOM, SHY
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"  # bidi embeddings and isolates
)
WHITESPACE = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u3000"
FRAGMENTS = (
    " bank ",
    "river bank",
    "embeddings",
    "##ing",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "[PAD]",
    "[UNK]",
    "Straße",
    "İstanbul",
    "\ufb01ne",  # fi ligature
    "e\u0301",  # e + combining acute
    "\U0001f469\u200d\U0001f469\u200d\U0001f467",  # family: ZWJ sequence
    "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag: variation selector + ZWJ
    "\u05e9\u05c1\u05b8\u05dc\u05d5\u05b9\u05dd",  # Hebrew with points
    "\u0645\u0631\u062d\u0628\u0627",  # Arabic
    "\u4e2d\u6587\u5b57",  # CJK
    "\r\n",
    "don't",
    "\u2026",
    "\ufffd",
    "\ud83d",  # a lone high surrogate (half of an emoji)
)
_CHARACTER_KINDS = (
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),  # printable ASCII: real words
    st.characters(categories=["Cc", "Cf", "Zs", "Zl", "Zp"]),
    st.sampled_from(ZERO_WIDTH_AND_BIDI + WHITESPACE),
    st.characters(categories=["So", "Sk"]),  # emoji and other symbols
    st.characters(categories=["Mn", "Me", "Mc"]),  # combining marks
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),  # CJK
    st.characters(min_codepoint=0x0590, max_codepoint=0x06FF),  # Hebrew, Arabic
    st.characters(),  # anything else (all planes, Lo, Nd, ...), no surrogates
)
NO_SURROGATES = st.one_of(*_CHARACTER_KINDS)
CHARACTERS = st.one_of(*_CHARACTER_KINDS, st.characters(categories=["Cs"]))  # + lone surrogates
SOME_WORD = st.one_of(
    st.sampled_from(["bank", "river", "a", "I", "x1", "\u4e2d", "\u0645\u0631", "\u05e9\u05dc"]),
    st.characters(categories=["L", "N"]),
)


def _texts(
    characters: st.SearchStrategy[str], max_parts: int = 8, min_parts: int = 0
) -> st.SearchStrategy[str]:
    part = st.one_of(st.text(characters, min_size=1, max_size=8), st.sampled_from(FRAGMENTS))
    return st.lists(part, min_size=min_parts, max_size=max_parts).map("".join)


TEXT = st.one_of(
    _texts(CHARACTERS),
    st.text(st.sampled_from(WHITESPACE), max_size=12),  # empty and whitespace-only
    st.text(st.sampled_from(ZERO_WIDTH_AND_BIDI + "\x00\x01\x7f"), min_size=1, max_size=6),
)
READABLE = st.tuples(_texts(CHARACTERS, 3), SOME_WORD, _texts(CHARACTERS, 3)).map("".join)
"""Arbitrary text around a letter or digit: always at least one token the model reads."""
TEXTS = st.one_of(
    st.lists(READABLE, min_size=1, max_size=6),  # accepted
    st.lists(st.one_of(READABLE, TEXT), max_size=6),  # often refused
)
WORD = st.one_of(
    st.sampled_from(["bank", "river bank", "Bank", "embeddings", "[MASK]", "\u4e2d", ""]),
    st.text(CHARACTERS, max_size=10),
)


@st.composite
def long_texts(draw, sizes: tuple[int, ...] = (20_001, 33_333, MAX_CHARS + 1, MAX_CHARS)) -> str:
    """A drawn snippet repeated past 20,000 characters (``st.text(min_size=20000)`` is slow).

    ``MAX_CHARS`` (accepted) and ``MAX_CHARS + 1`` (refused) probe the length limit.
    """
    snippet = draw(_texts(CHARACTERS, max_parts=4, min_parts=1))
    size = draw(st.sampled_from(sizes))
    return (snippet * (size // len(snippet) + 1))[:size]


def strategies_for(num_layers: int) -> st.SearchStrategy[object]:
    """Valid and invalid layer strategies: names, ints in and out of range, junk."""
    return st.one_of(
        st.sampled_from(explorer.LAYER_CHOICES),
        st.integers(-(num_layers + 3), num_layers + 2),
        st.integers(),
        st.text(max_size=12),
        st.sampled_from([True, False, None, 1.0, "LAST", " last", "-1", b"last", np.int64(-1)]),
    )


# -- helpers ------------------------------------------------------------------------------


def outcome(function, *args, **kwargs):
    """``function(*args, **kwargs)``, or ``None`` when it raises ``ValueError`` with a message.

    Any other exception propagates and fails the property.
    """
    try:
        result = function(*args, **kwargs)
    except ValueError as error:
        assert str(error).strip(), f"ValueError without a message from {function.__name__}"
        # UnicodeError subclasses ValueError, but a codec failure is a bug, not a refusal.
        assert not isinstance(error, UnicodeError), f"{function.__name__}: {error!r}"
        note(f"ValueError: {error}")
        event(f"{function.__name__} raised ValueError")
        return None
    event(f"{function.__name__} returned")
    return result


def assert_finite_float32(array: np.ndarray, shape: tuple[int, ...]) -> None:
    assert isinstance(array, np.ndarray)
    assert array.dtype == np.float32, array.dtype
    assert array.shape == shape, (array.shape, shape)
    assert np.isfinite(array).all()


def width(model: explorer.Model, pooling: str, layers: object) -> int:
    """Documented vector size for a pooling and a (valid) layer strategy."""
    return VectorChoice(pooling, layers).dim(model)


def layers_dim(layers: object, hidden_size: int, num_layers: int) -> int:
    """Vector size of a layer choice for a model of this shape (``ValueError`` if invalid)."""
    choice = VectorChoice("mean", layers)
    choice.indices(num_layers)
    return choice.dim(hidden_size)


_UNTRUNCATED: dict[str, Tokenizer] = {}


def full_length(model: explorer.Model, text: str, pair: str | None) -> int:
    """Number of tokens (special ones included) before truncation.

    Counted by an independent copy of the model's tokenizer with truncation switched off,
    so the model's own tokenizer is never reconfigured.
    """
    if model.source not in _UNTRUNCATED:
        copy = Tokenizer.from_str(model.tokenizer.backend_tokenizer.to_str())
        copy.no_truncation()
        copy.no_padding()
        _UNTRUNCATED[model.source] = copy
    return len(_UNTRUNCATED[model.source].encode(text, pair).ids)


def readable(model: explorer.Model, text: str) -> bool:
    """Whether ``text`` is a valid input with at least one non-special token."""
    tokenization = outcome(model.tokenize, text)
    return tokenization is not None and not all(tokenization.special)


def check_tokenization(model, text, pair, tokenization) -> None:
    clean = clean_text(text)
    clean_pair = None if pair is None else clean_text(pair)
    assert tokenization.text == clean and len(clean) == len(text)
    assert tokenization.pair == clean_pair
    n = len(tokenization)
    for name in ("tokens", "ids", "segment_ids", "attention_mask", "offsets", "word_ids"):
        assert len(getattr(tokenization, name)) == n, name
    assert len(tokenization.sequence_ids) == len(tokenization.special) == n
    assert 2 <= n <= model.max_length
    assert set(tokenization.segment_ids) <= {0, 1}
    assert set(tokenization.attention_mask) == {1}
    assert all(0 <= i < model.vocab_size for i in tokenization.ids)
    assert tokenization.tokens == model.tokenizer.convert_ids_to_tokens(tokenization.ids)
    assert tokenization.special[0] and tokenization.special[-1]
    for (start, end), sequence, special, segment in zip(
        tokenization.offsets,
        tokenization.sequence_ids,
        tokenization.special,
        tokenization.segment_ids,
        strict=True,
    ):
        assert sequence in (None, 0, 1)
        assert special == (sequence is None)
        if sequence is not None:  # BERT: segment id 0 for ``text``, 1 for ``pair``
            assert segment == sequence
        source = clean if sequence in (None, 0) else clean_pair
        assert 0 <= start <= end <= len(source)
        if special:
            assert (start, end) == (0, 0)
    if pair is None:
        assert set(tokenization.sequence_ids) <= {None, 0}
        assert set(tokenization.segment_ids) == {0}
    assert tokenization.truncated == (full_length(model, clean, clean_pair) > model.max_length)
    for sequence, source in ((0, clean), (1, clean_pair or "")):
        for token_start, token_end, char_start, char_end in tokenization.words(sequence):
            assert 0 < token_start < token_end < n
            assert 0 <= char_start <= char_end <= len(source)
    assert len(tokenization.as_table()) == len(tokenization.subword) == n
    assert 0 <= tokenization.num_words <= n


def check_occurrences(model, texts, occurrences) -> None:
    assert isinstance(occurrences, list)
    for occurrence in occurrences:
        assert isinstance(occurrence, explorer.Occurrence)
        assert 0 <= occurrence.text_index < len(texts)
        text = texts[occurrence.text_index]
        tokenization = model.tokenize(text)
        assert 0 < occurrence.token_start < occurrence.token_end < len(tokenization)
        span = range(occurrence.token_start, occurrence.token_end)
        assert not any(tokenization.special[i] for i in span)
        assert all(tokenization.sequence_ids[i] == 0 for i in span)
        assert 0 <= occurrence.char_start <= occurrence.char_end <= len(text)
        # Lone surrogates become U+FFFD one for one (clean_text), so offsets still fit ``text``.
        assert occurrence.surface == clean_text(text)[occurrence.char_start : occurrence.char_end]
        if text == clean_text(text):
            assert occurrence.surface == text[occurrence.char_start : occurrence.char_end]


# -- tokenization and hidden states -------------------------------------------------------


@CHEAP
@given(text=TEXT, pair=st.one_of(st.none(), TEXT))
def test_tokenize_any_text(tiny, text, pair):
    tokenization = outcome(tiny.tokenize, text, pair)
    if tokenization is None:
        assert not text.strip() or (pair is not None and not pair.strip())
        return
    check_tokenization(tiny, text, pair, tokenization)


@COSTLY
@given(text=TEXT, pair=st.one_of(st.none(), TEXT))
def test_tokenize_any_text_bundled(bundled, text, pair):
    tokenization = outcome(bundled.tokenize, text, pair)
    if tokenization is not None:
        check_tokenization(bundled, text, pair, tokenization)


@LONG
@given(text=long_texts(), pair=st.one_of(st.none(), TEXT))
def test_tokenize_long_text(tiny, text, pair):
    tokenization = outcome(tiny.tokenize, text, pair)
    if len(text) > MAX_CHARS:
        assert tokenization is None
    elif tokenization is not None:
        check_tokenization(tiny, text, pair, tokenization)


@CHEAP
@given(text=TEXT, pair=st.one_of(st.none(), TEXT))
def test_hidden_states_any_text(tiny, text, pair):
    states = outcome(tiny.hidden_states, text, pair)
    tokenization = outcome(tiny.tokenize, text, pair)
    if states is None:
        # Refused exactly when there is nothing to read.
        assert tokenization is None or all(tokenization.special)
        return
    assert tokenization is not None
    assert_finite_float32(states, (tiny.num_layers + 1, len(tokenization), tiny.hidden_size))


@pytest.mark.slow
@LONG
@given(text=long_texts())
def test_hidden_states_long_text_bundled(bundled, text):
    states = outcome(bundled.hidden_states, text)
    if states is None:
        assert len(text) > MAX_CHARS or not readable(bundled, text)
        return
    tokenization = bundled.tokenize(text)
    assert_finite_float32(states, (bundled.num_layers + 1, len(tokenization), bundled.hidden_size))


@CHEAP
@given(texts=TEXTS)
def test_hidden_states_batch_equals_one_at_a_time(tiny, texts):
    if texts:  # a single string is refused, not read as a list of characters
        assert outcome(tiny.hidden_states_batch, texts[0]) is None
    batch = outcome(tiny.hidden_states_batch, texts, max_batch_size=3)
    if batch is None:
        assert not texts or not all(readable(tiny, t) for t in texts)
        return
    assert isinstance(batch, list) and len(batch) == len(texts)
    for text, states in zip(texts, batch, strict=True):
        single = tiny.hidden_states(text)
        assert_finite_float32(states, single.shape)
        np.testing.assert_allclose(states, single, atol=1e-4)


@CHEAP
@given(text=TEXT, layers=strategies_for(4))
def test_token_vectors(tiny, text, layers):
    vectors = outcome(explorer.token_vectors, tiny, text, layers)
    valid = outcome(validate_layers, layers, tiny.num_layers) is not None
    if vectors is None:
        assert not valid or not readable(tiny, text)
        return
    assert valid
    rows = len(tiny.tokenize(text))
    assert_finite_float32(vectors, (rows, layers_dim(layers, 32, 4)))


# -- layer strategies ---------------------------------------------------------------------


@CHEAP
@given(num_layers=st.integers(1, 24), data=st.data())
def test_layer_strategies_valid_or_value_error(num_layers, data):
    strategy = data.draw(strategies_for(num_layers))
    valid = outcome(validate_layers, strategy, num_layers)
    if valid is None:
        assert outcome(layer_indices, strategy, num_layers) is None
        assert outcome(layers_dim, strategy, 8, num_layers) is None
        return
    indices = layer_indices(strategy, num_layers)
    assert indices and all(0 <= i <= num_layers for i in indices)
    stack = np.arange((num_layers + 1) * 3 * 8, dtype=np.float32).reshape(num_layers + 1, 3, 8)
    combined = explorer.combine_layers(stack, strategy)
    assert_finite_float32(combined, (3, layers_dim(strategy, 8, num_layers)))
    if len(indices) == 1:
        np.testing.assert_array_equal(combined, stack[indices[0]])


# -- sentence embeddings ------------------------------------------------------------------


@CHEAP
@given(
    texts=TEXTS,
    pooling=st.sampled_from([*explorer.POOLINGS, "MEAN", "sum", "", "mean "]),
    layers=st.one_of(st.sampled_from(explorer.LAYER_CHOICES), strategies_for(4)),
    normalize=st.booleans(),
    exclude_special=st.booleans(),
)
def test_sentence_embeddings(tiny, texts, pooling, layers, normalize, exclude_special):
    vectors = outcome(
        explorer.sentence_embeddings,
        tiny,
        texts,
        pooling=pooling,
        layers=layers,
        normalize=normalize,
        exclude_special=exclude_special,
        batch_size=4,
    )
    valid = (
        pooling in explorer.POOLINGS
        and outcome(validate_layers, layers, tiny.num_layers) is not None
        and bool(texts)
        and all(readable(tiny, t) for t in texts)
    )
    assert (vectors is not None) == valid
    if vectors is None:
        return
    assert_finite_float32(vectors, (len(texts), width(tiny, pooling, layers)))
    if normalize:
        norms = np.linalg.norm(vectors, axis=1)
        assert np.all((np.abs(norms - 1) < 1e-4) | (norms == 0))


@CHEAP
@given(texts=st.lists(st.one_of(SOME_WORD, READABLE), min_size=1, max_size=4))
def test_exclude_special_never_gives_nan_for_short_texts(tiny, texts):
    """One-token texts leave a single token for mean and max: still no NaN, no zero rows."""
    corpus = explorer.embed_corpus(tiny, texts, exclude_special=True)
    for pooling in explorer.POOLINGS:
        for layers in ("last", "concat_last4", 0):
            vectors = corpus.sentence(pooling, layers, normalize=True)
            assert_finite_float32(vectors, (len(texts), width(tiny, pooling, layers)))
            np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-4)


@COSTLY
@given(texts=st.lists(READABLE, min_size=1, max_size=5))
def test_a_text_gets_the_same_vector_alone_or_in_a_batch(tiny, texts):
    for exclude_special in (False, True):
        together = explorer.embed_corpus(tiny, texts, exclude_special=exclude_special)
        for i, text in enumerate(texts):
            alone = explorer.embed_corpus(tiny, [text], exclude_special=exclude_special)
            for name in ("cls", "mean", "max"):
                np.testing.assert_allclose(
                    together.pooled[name][:, i], alone.pooled[name][:, 0], atol=1e-4
                )


@COSTLY
@given(
    texts=st.one_of(
        st.lists(READABLE, min_size=1, max_size=80),
        st.lists(st.one_of(READABLE, TEXT), max_size=80),
    ),
    max_batch_size=st.integers(-1, 16),
    max_batch_tokens=st.integers(0, 2048),
)
def test_embed_corpus_many_texts(tiny, texts, max_batch_size, max_batch_tokens):
    calls = []
    corpus = outcome(
        explorer.embed_corpus,
        tiny,
        texts,
        progress=lambda done, total: calls.append((done, total)),
        max_batch_size=max_batch_size,
        max_batch_tokens=max_batch_tokens,
    )
    if corpus is None:
        assert not texts or not all(readable(tiny, t) for t in texts)
        return
    n = len(texts)
    assert len(corpus) == n and corpus.texts == tuple(texts)
    assert calls and calls[-1] == (n, n)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})
    lengths = [len(tiny.tokenize(t)) for t in texts]
    assert corpus.num_tokens.tolist() == lengths
    assert corpus.truncated.tolist() == [tiny.tokenize(t).truncated for t in texts]
    for pooling in explorer.POOLINGS:
        per_layer = corpus.per_layer(pooling)
        assert_finite_float32(per_layer, (5, n, width(tiny, pooling, "last")))
    for name in ("cls", "mean", "max"):
        assert_finite_float32(corpus.pooled[name], (5, n, 32))


@COSTLY
@given(
    texts=st.one_of(st.lists(READABLE, min_size=1, max_size=4), TEXT.map(lambda t: [t])),
    pooling=st.sampled_from(explorer.POOLINGS),
    layers=st.sampled_from([*explorer.LAYER_CHOICES, 0, 3, -7, -8, 7]),
    normalize=st.booleans(),
    exclude_special=st.booleans(),
)
def test_sentence_embeddings_bundled(bundled, texts, pooling, layers, normalize, exclude_special):
    vectors = outcome(
        explorer.sentence_embeddings,
        bundled,
        texts,
        pooling=pooling,
        layers=layers,
        normalize=normalize,
        exclude_special=exclude_special,
    )
    valid = -7 <= layers <= 6 if isinstance(layers, int) else True
    if vectors is None:
        assert not valid or not all(readable(bundled, t) for t in texts)
        return
    assert valid
    assert_finite_float32(vectors, (len(texts), width(bundled, pooling, layers)))


@LONG
@given(texts=st.lists(long_texts(), min_size=1, max_size=2), exclude_special=st.booleans())
def test_sentence_embeddings_long_texts(tiny, texts, exclude_special):
    corpus = outcome(explorer.embed_corpus, tiny, texts, exclude_special=exclude_special)
    if corpus is None:
        assert any(len(t) > MAX_CHARS or not readable(tiny, t) for t in texts)
        return
    assert corpus.num_tokens.max() <= tiny.max_length
    for pooling in explorer.POOLINGS:
        vectors = corpus.sentence(pooling, "concat_last4", normalize=True)
        assert_finite_float32(vectors, (len(texts), width(tiny, pooling, "concat_last4")))


# -- words in context ---------------------------------------------------------------------


@CHEAP
@given(texts=st.one_of(TEXT, TEXTS), word=WORD)
def test_find_occurrences(tiny, texts, word):
    occurrences = outcome(explorer.find_occurrences, tiny, texts, word)
    if occurrences is not None:
        event(f"{len(occurrences) and 'some' or 'no'} occurrences")
        check_occurrences(tiny, [texts] if isinstance(texts, str) else texts, occurrences)


@CHEAP
@given(
    before=_texts(NO_SURROGATES, max_parts=3),
    word=st.text(NO_SURROGATES, min_size=1, max_size=10),
    after=_texts(NO_SURROGATES, max_parts=3),
)
def test_a_word_that_is_there_is_found(tiny, before, word, after):
    """A word put between spaces into a text is found there (or refused as unreadable)."""
    text = f"{before} {word} {after}"
    assume(readable(tiny, text) and not tiny.tokenize(text).truncated)
    occurrences = outcome(explorer.find_occurrences, tiny, [text], word)
    if occurrences is None:  # the word alone has no readable token
        assert not readable(tiny, word)
        return
    assert occurrences, f"{word!r} not found in {text!r}"
    check_occurrences(tiny, [text], occurrences)


@CHEAP
@given(
    texts=st.one_of(TEXT, TEXTS),
    word=WORD,
    plant=st.booleans(),
    layers=st.sampled_from([*explorer.LAYER_CHOICES, 2, -1]),
    subwords=st.sampled_from(explorer.SUBWORD_MODES),
)
def test_word_vectors(tiny, texts, word, plant, layers, subwords):
    if plant and texts:  # make an occurrence likely
        texts = f"{texts} {word}" if isinstance(texts, str) else [f"{texts[0]} {word}", *texts[1:]]
    result = outcome(explorer.word_vectors, tiny, texts, word, layers, subwords)
    listed = [texts] if isinstance(texts, str) else texts
    if result is None:  # refused exactly when there is nothing to find
        assert outcome(explorer.find_occurrences, tiny, listed, word) in (None, [])
        return
    occurrences, vectors = result
    check_occurrences(tiny, listed, occurrences)
    assert occurrences == explorer.find_occurrences(tiny, listed, word)
    assert_finite_float32(vectors, (len(occurrences), layers_dim(layers, 32, 4)))
    assert len(occurrences) >= 1


@COSTLY
@given(texts=st.lists(TEXT, min_size=1, max_size=3), word=WORD)
def test_word_vectors_bundled(bundled, texts, word):
    text = f"{texts[0]} {word}"  # make an occurrence likely
    result = outcome(explorer.word_vectors, bundled, [text, *texts[1:]], word, "concat_last4")
    if result is None:
        return
    occurrences, vectors = result
    check_occurrences(bundled, [text, *texts[1:]], occurrences)
    assert_finite_float32(vectors, (len(occurrences), 4 * bundled.hidden_size))


@pytest.mark.slow
@settings(LONG, max_examples=10)
@given(text=long_texts(sizes=(20_001,)), word=WORD)
def test_word_vectors_long_text(tiny, text, word):
    result = outcome(explorer.word_vectors, tiny, [f"{word} {text}"], word, "last")
    if result is not None:
        occurrences, vectors = result
        check_occurrences(tiny, [f"{word} {text}"], occurrences)
        assert_finite_float32(vectors, (len(occurrences), 32))


@pytest.mark.parametrize("word", ["a\ud800b", "ban\udc00k", "x\ud83d\ude00y"])
def test_a_word_with_a_lone_surrogate_is_found(tiny, word):
    text = f"Look: {word} here."
    try:
        occurrences = explorer.find_occurrences(tiny, [text], word)
    except UnicodeError as error:
        pytest.fail(f"codec error leaked: {error!r}")
    assert [o.surface for o in occurrences] == [clean_text(word)]


# -- similarity ---------------------------------------------------------------------------

FLOATS = st.floats(-1e6, 1e6, allow_nan=False, width=32)


@st.composite
def matrices(draw, dim: int | None = None, rows: int | None = None) -> np.ndarray:
    """float32 ``(rows, dim)`` with values an embedding could have (zero rows included)."""
    dim = dim or draw(st.integers(1, 6))
    rows = rows or draw(st.integers(1, 5))
    values = draw(st.lists(FLOATS, min_size=rows * dim, max_size=rows * dim))
    return np.array(values, dtype=np.float32).reshape(rows, dim)


@CHEAP
@given(data=st.data())
def test_cosine_similarity_matrices(data):
    a = data.draw(matrices())
    b = data.draw(matrices(a.shape[1]))
    ab = explorer.cosine_similarity(a, b)
    assert_finite_float32(ab, (len(a), len(b)))
    assert np.all((ab >= -1) & (ab <= 1))
    np.testing.assert_allclose(ab, explorer.cosine_similarity(b, a).T, atol=1e-6)
    aa = explorer.cosine_similarity(a)
    assert_finite_float32(aa, (len(a), len(a)))
    assert np.all((aa >= -1) & (aa <= 1))
    np.testing.assert_allclose(aa, aa.T, atol=1e-6)
    wrong = np.ones((2, a.shape[1] + 1), dtype=np.float32)
    assert outcome(explorer.cosine_similarity, a, wrong) is None


@CHEAP
@given(data=st.data())
def test_cosine_similarity_vectors(data):
    a, b = data.draw(matrices(rows=2)).copy()
    for x, y in ((a, b), (a, a), (b, b)):
        value = explorer.cosine_similarity(x, y)
        assert isinstance(value, float) and np.isfinite(value)
        assert value == pytest.approx(explorer.cosine_similarity(y, x))
        assert -1.0 <= value <= 1.0, value


def test_cosine_similarity_of_a_vector_with_itself_is_at_most_one():
    vector = np.array([0.09297664, 0.8977801, 1.635899, 1.4262272], dtype=np.float32)
    assert explorer.cosine_similarity(vector, vector) <= 1.0


# -- corpora ------------------------------------------------------------------------------


@CHEAP
@given(
    word=st.one_of(
        st.text(CHARACTERS, max_size=12),
        st.sampled_from(corpora.SENSE_WORDS).map(lambda w: f" {w.upper()}\t"),
    )
)
def test_load_senses_any_word(word):
    frame = outcome(corpora.load_senses, word)
    if frame is None:
        assert word.strip().lower() not in corpora.SENSE_WORDS
        return
    assert list(frame.columns) == ["word", "sense", "text"]
    assert len(frame) > 0
    assert set(frame["word"]) == {word.strip().lower()}
