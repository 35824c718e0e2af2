"""Caps on one request, so that every page answers within seconds on a 2-core CPU.

A shared server must bound what one visitor can ask for: a paste of 5,000 long texts is 2.5
million tokens (minutes of forward passes), a word repeated 500 times in 31 lines is 15,500
points. Pages cap each request with these functions and say on the page what was kept; the
library's own functions stay uncapped for notebooks and the command line.

Every cap is written for the bundled model (all-MiniLM-L6-v2: 6 layers, hidden size 384) and
scaled by what the loaded model costs (:func:`work_factor`, :func:`memory_factor`): BERT-base
reads a token about 8 times slower and keeps 3.7 times the bytes per token, BERT-large 28 and
9.5 times, so the same page gets a proportionally smaller budget of tokens and answers in the
same time, within the same memory.

How each cap scales with the model in use:

- by work per token (:func:`work_factor`): :data:`MAX_TOKENS`, :data:`MAX_PROBE_TOKENS`;
- by memory per token (:func:`memory_factor`): :data:`MAX_CONTEXT_TOKENS`,
  :data:`MAX_PROBE_TEXTS`;
- by layers x heads: the Attention page's tokens (:data:`MAX_ATTENTION_VALUES`,
  :func:`attention_tokens`);
- by the maps drawn, layers + 1: Layers in motion's points (:func:`motion_points`);
- not at all, because the model's size does not change their cost: points drawn
  (:data:`MAX_POINTS`, :data:`MAX_POINTS_3D`), occurrences (:data:`MAX_OCCURRENCES`), the
  lens's masks (:data:`MAX_LENS_MASKS`: the head runs one layer at a time), the probes' folds.

``python -m bench.soak --model FOLDER`` walks every page with its largest inputs on a model
folder of real size (``python -m bench.model_folders``); bench/README.md, "Real model sizes",
gives what it measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

import numpy as np

MAX_TOKENS = 80_000
"""Most tokens one request embeds (texts after truncation to the model's length, special
tokens included). At 100,000 the largest Projections request (5,000 lines of 40 words, PCA)
took 33 s on a quiet 2-core machine (``python -m bench.soak --sessions 1 --pages
projections``), over the 30 s every request must stay under."""

MAX_OCCURRENCES = 5_000
"""Most occurrences of a word drawn as points."""

BUNDLED_WORK = 10_646_784
"""Parameters of the bundled model outside its embeddings and pooler: the weights every token
passes through, so a forward pass costs about twice this many operations per token."""

BUNDLED_STATE = 7 * 384
"""Values per token the bundled model's hidden states hold (embeddings + 6 layers, 384 wide)."""

Scale = Literal["work", "memory"]


def work_factor(model) -> float:
    """How many times the bundled model's time a token costs ``model`` (at least 1): its
    parameters outside the embeddings and pooler, the ones every token is multiplied through,
    over the bundled model's (BERT-base 8.0, BERT-large 28.5, DistilBERT-base 4.0)."""
    work = sum(
        parameter.numel()
        for name, parameter in model.encoder.named_parameters()
        if "embeddings" not in name and "pooler" not in name
    )
    return max(1.0, work / BUNDLED_WORK)


def memory_factor(model) -> float:
    """How many times the bundled model's bytes one token's hidden states take with ``model``
    (at least 1): ``(layers + 1) x hidden`` over 7 x 384 (BERT-base 3.7, BERT-large 9.5)."""
    return max(1.0, (model.num_layers + 1) * model.hidden_size / BUNDLED_STATE)


def scaled(model, budget: int, scale: Scale = "work") -> int:
    """``budget``, a cap written for the bundled model, for ``model``: divided by its
    :func:`work_factor` (a cap on time) or :func:`memory_factor` (a cap on memory)."""
    factor = work_factor(model) if scale == "work" else memory_factor(model)
    return max(1, int(budget / factor))


def costlier(model) -> str | None:
    """Why ``model`` gets smaller budgets of time and memory both, or ``None`` when it costs
    about what the bundled model costs."""
    work, memory = work_factor(model), memory_factor(model)
    if max(work, memory) < 1.5:
        return None
    return (
        f"this model reads a token about {work:.0f} times slower than the bundled "
        f"all-MiniLM-L6-v2 and keeps about {memory:.0f} times its memory per token, so its "
        "budgets are that much smaller"
    )


def slower(model, scale: Scale = "work") -> str | None:
    """Why ``model`` gets a smaller budget, in plain words, or ``None`` when it costs about
    what the bundled model costs."""
    factor = work_factor(model) if scale == "work" else memory_factor(model)
    if factor < 1.5:
        return None
    if scale == "work":
        return (
            f"this model reads a token about {factor:.0f} times slower than the bundled "
            "all-MiniLM-L6-v2, so its budget is that much smaller"
        )
    return (
        f"this model keeps about {factor:.0f} times the bundled all-MiniLM-L6-v2's memory per "
        "token, so its budget is that much smaller"
    )


class Texts(Protocol):
    """Texts with optional labels, one per text: :class:`explorer.data.uploads.LabelledTexts`
    (a cap keeps a prefix of it with ``head``, labels and other columns cut alike)."""

    texts: tuple[str, ...]
    labels: tuple[str, ...] | None

    def head(self, n: int) -> Texts: ...


@dataclass(frozen=True)
class Kept:
    """What a cap kept: ``data`` (the first ``len(data)`` of ``total`` texts) and, when it cut
    anything, a ``note`` to show on the page."""

    data: Texts
    total: int
    tokens: int
    note: str | None = None


def token_counts(model, texts: Sequence[str]) -> list[int]:
    """Tokens the model reads for each text (truncated to ``model.max_length``, special
    tokens included)."""
    return [len(row["input_ids"]) for row in model.encode_batch(list(texts))]


def cap_tokens(model, data: Texts, max_tokens: int = MAX_TOKENS, scale: Scale = "work") -> Kept:
    """The longest prefix of ``data`` (texts with their labels) within ``max_tokens`` tokens
    of the bundled model, :func:`scaled` for ``model`` (at least one text). Raises
    ``ValueError`` from the tokenizer for unreadable texts."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, not {max_tokens}.")
    max_tokens = scaled(model, max_tokens, scale)
    counts = token_counts(model, data.texts)
    total_tokens, kept = 0, 0
    for count in counts:
        if kept and total_tokens + count > max_tokens:
            break
        total_tokens += count
        kept += 1
    if kept == len(counts):
        return Kept(data, len(counts), total_tokens)
    why = slower(model, scale)
    note = (
        f"Kept the first {kept:,} of {len(counts):,} texts ({total_tokens:,} of "
        f"{sum(counts):,} tokens): one request embeds at most {max_tokens:,} tokens"
        + (f" ({why})" if why else "")
        + ", so the page answers within seconds. Remove texts to see others."
    )
    kept_data = data.head(kept)
    return Kept(kept_data, len(counts), total_tokens, note)


def cap_occurrences(count: int, limit: int = MAX_OCCURRENCES) -> tuple[int, str | None]:
    """How many of ``count`` occurrences to draw, and a note when that is fewer."""
    if count <= limit:
        return count, None
    return limit, (
        f"The word occurs {count:,} times; the first {limit:,} occurrences are drawn (a page "
        "shows at most that many points of one word)."
    )


MAX_CONTEXT_TOKENS = 4_000
"""Most tokens the Word in context page reads (100 sentences of 40 tokens): it keeps every
token's vector at every layer (for the layer means and the anisotropy baseline), 7 x 4,000 x
384 float32 = 43 MB for the bundled model. At 10,000 one request took 400 MB at its peak, and
eight sessions sending it at once took the server to 2.7 GB (``bench.soak --sessions 8``); the
page compares at most 12 occurrences anyway."""


def word_layer_vectors(
    model, texts: Sequence[str], word: str, subwords: str = "mean", limit: int = MAX_OCCURRENCES
):
    """:func:`explorer.word_layer_vectors` for at most the first ``limit`` occurrences of
    ``word``: ``(occurrences, vectors (layers + 1, kept, hidden), note)``, ``note`` None when
    nothing was cut. Only the texts holding the kept occurrences run through the model."""
    from explorer.words import find_occurrences
    from explorer.words import word_layer_vectors as all_vectors

    texts = list(texts)
    found = find_occurrences(model, texts, word)
    kept, note = cap_occurrences(len(found), limit)
    if note is not None:
        texts = texts[: found[kept - 1].text_index + 1]
    occurrences, vectors = all_vectors(model, texts, word, subwords)
    return occurrences[:kept], np.ascontiguousarray(vectors[:, :kept]), note


MAX_POINTS = 20_000
"""Most points one map draws (WebGL keeps 20,000 smooth); larger sets are sampled."""


def sample_points(n: int, limit: int = MAX_POINTS, seed: int = 0) -> tuple[np.ndarray, str | None]:
    """Which of ``n`` points a map draws: all of them (in order), or ``limit`` of them drawn at
    random (sorted, reproducible with ``seed``) with a note saying so."""
    if n <= limit:
        return np.arange(n), None
    rows = np.sort(np.random.default_rng(seed).choice(n, size=limit, replace=False))
    return rows, f"Showing {limit:,} of {n:,} points, a random sample (seed {seed})."


MAX_PROBE_ROWS = 2_000
"""Most rows of a saved corpus one probe reads (a stratified random sample beyond): a linear
probe on 2,000 x 384 vectors takes about 1 s per layer and pooling with 5 folds on one core."""


MAX_POINTS_3D = 2_000
"""Most points UMAP and t-SNE draw in 3-D. On a quiet 2-core machine 5,000 word occurrences
took 38 s (t-SNE) and 55 s (UMAP) in 3-D (``python -m bench.soak --sessions 1 --pages
projections``), random 384-d points 23 s and 71 s; 2,000 take 7 s and 4 s. PCA draws any
number in 3-D, and 2-D maps any number up to :data:`MAX_POINTS`."""


def cap_3d(params, count: int, limit: int | None = None):
    """``(params, note)``: ``params`` (a :class:`explorer.maps.ProjectionParams`) as
    they are, or, for a UMAP or t-SNE map of more than ``limit`` points in 3-D, the same in 2-D
    with a note saying why (no point is left out). ``limit`` defaults to
    :data:`MAX_POINTS_3D`."""
    limit = MAX_POINTS_3D if limit is None else limit
    if params.n_components != 3 or params.method == "pca" or count <= limit:
        return params, None
    name = {"umap": "UMAP", "tsne": "t-SNE"}.get(params.method, params.method)
    return replace(params, n_components=2), (
        f"Drawn in 2-D: {name} in 3-D draws at most {limit:,} points (it takes minutes for "
        f"more on this server), and this map has {count:,}. Choose PCA for a 3-D view of all "
        "of them, or fewer texts."
    )


MAX_PROBE_TEXTS = 800
"""Most texts one "Which layer?" request embeds and probes (a stratified random sample beyond,
:func:`explorer.probing.sample.probe_sample`). The default four poolings x 7 layers x 5 folds
are 140 logistic regressions: about 11 s of one core at 800 rows, 14 s at 1,000, 32 s at
2,000 (384-d vectors of short texts, on a busy machine)."""

MAX_PROBE_TOKENS = 60_000
"""Most tokens one "Which layer?" request embeds: the forward pass (about 20 s for
:data:`MAX_TOKENS` on a quiet 2-core machine) shares the 30 s with the probes."""


MAX_PROBE_TRAIN_ROWS = 3_200
"""Most training rows one layer's probe sees over all its folds, ``rows x (folds - 1)``: a probe's
time grows with it. 800 rows get 5 folds (the default), 400 rows 9."""


def probe_folds(rows: int, folds: int, limit: int | None = None) -> tuple[int, str | None]:
    """``(folds, note)``: ``folds`` as asked, or fewer (never below 2) so that ``rows x (folds -
    1)`` stays within ``limit`` (default :data:`MAX_PROBE_TRAIN_ROWS`), with a note saying so."""
    limit = MAX_PROBE_TRAIN_ROWS if limit is None else limit
    allowed = max(2, limit // max(rows, 1) + 1)
    if folds <= allowed:
        return folds, None
    return allowed, (
        f"Using {allowed}-fold cross-validation instead of {folds}: with {rows:,} rows, more "
        "folds would take too long for one request here. Fewer rows allow more folds."
    )


MAX_CNN_VALUES = 8_000_000
"""Most ``texts x tokens x hidden`` values the "Which layer?" CNN head trains on in one request
(20,833 token vectors of 384): 117 texts x 128 tokens x 384 (5.8 million) took 13-19 s of one
core to train over 5 folds on a busy machine, the token vectors 7 s more."""


MAX_MOTION_POINTS = 1_500
"""Most points Layers in motion maps at every layer (a random sample beyond,
:func:`motion_rows`). It draws one map per layer, 7 for the bundled model: a saved corpus of
20,000 rows ran past 580 s with UMAP and 160 s with t-SNE, 5,000 pasted lines 55-90 s (issue
23). At 2,000 points x 7 layers (``python -m bench.animation 2000 --tsne``, load average 1.3
rising to 4) AlignedUMAP took 26.1 s warm (32.6 s once the load rose), t-SNE 28.0 s, joint
PCA 0.2 s: at the 30 s limit with nothing to spare. 1,500 leaves a quarter of it for a busy
machine (PCA: 0.2 s; on a machine at load 5-12, UMAP 28-71 s and t-SNE 45 s, which no cap
fixes)."""


BUNDLED_FRAMES = 7
"""Maps Layers in motion draws for the bundled model (embeddings + 6 layers)."""


def motion_points(frames: int, limit: int | None = None) -> int:
    """Most points Layers in motion maps when it draws ``frames`` maps (a model's layers + 1):
    ``limit`` (default :data:`MAX_MOTION_POINTS`, written for the bundled model's 7 maps)
    scaled by ``7 / frames``, since the aligned maps' time grows with points x frames
    (BERT-base's 13 maps: 807 points; BERT-large's 25: 420). At least 100 (or ``limit``)."""
    limit = MAX_MOTION_POINTS if limit is None else limit
    return min(limit, max(100, int(limit * BUNDLED_FRAMES / max(frames, 1))))


def motion_rows(n: int, limit: int | None = None) -> tuple[np.ndarray, str | None]:
    """Which of ``n`` points Layers in motion maps: all of them, or ``limit`` (default
    :data:`MAX_MOTION_POINTS`; :func:`motion_points` for a deeper model) drawn at random
    (sorted, seed 0) with a note saying so."""
    limit = MAX_MOTION_POINTS if limit is None else limit
    rows, sampled = sample_points(n, limit)
    if sampled is None:
        return rows, None
    return rows, (
        f"Layers in motion shows {limit:,} of the {n:,} points, a random sample (seed 0): it "
        f"maps every layer, which takes minutes for more on this server. The map view draws "
        "all of them."
    )


MAX_LESSON_TOKENS = 4_000
"""Most tokens "How contextual?" reads for each of its measurements (it reads its sentences
once for Ethayarajh's measures and once for the word senses, and as much again for the
random-weights comparison). The built-in sense sentences are 3,802 tokens for the bundled
model: all of them, 7-8 s for both measurements on a busy 2-core machine (load 14-17;
``python -m bench.explain``)."""

MIN_SENSE_SENTENCES = 5
"""Sentences of each sense "How contextual?" keeps whatever the model costs: each ambiguous
word then occurs in 10 or more sentences (a word counts from 5,
:data:`explorer.explain._classic.MIN_CONTEXTS`), and nearest centroid leaves one of 5 out."""


def cap_senses(model, frame, max_tokens: int = MAX_LESSON_TOKENS):
    """The labelled sentences ``frame`` (a DataFrame with ``word``, ``sense`` and ``text``)
    that one "How contextual?" request reads: the first ``k`` sentences of every word's every
    sense, ``k`` the largest whose tokens fit ``max_tokens`` of the bundled model
    (:func:`scaled` for ``model``), at least :data:`MIN_SENSE_SENTENCES`. Returns ``(kept
    frame, note)``, the note ``None`` when all were kept."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, not {max_tokens}.")
    budget = scaled(model, max_tokens)
    counts = np.asarray(token_counts(model, frame["text"].tolist()))
    rank = frame.groupby(["word", "sense"], sort=False).cumcount().to_numpy()
    k = int(rank.max()) + 1 if len(rank) else 0
    while k > MIN_SENSE_SENTENCES and counts[rank < k].sum() > budget:
        k -= 1
    keep = rank < k
    if keep.all():
        return frame, None
    tokens = int(counts[keep].sum())
    reason = (
        f"one request reads at most {budget:,} tokens for each measurement"
        if tokens <= budget
        else f"the fewest that still mean something, over the {budget:,} tokens a request "
        "would read for each measurement"
    )
    why = slower(model)
    note = (
        f"Measured on the first {k} sentences of each sense ({int(keep.sum()):,} of "
        f"{len(frame):,} sentences, {tokens:,} of {int(counts.sum()):,} tokens): {reason}"
        + (f" ({why})" if why else "")
        + ", so that the page answers within seconds."
    )
    return frame[keep].reset_index(drop=True), note


MAX_ATTENTION_VALUES = 12 * 12 * 512 * 512
"""Most attention weights, ``layers x heads x tokens x tokens``, one Attention page request
computes: BERT-base's at its full 512 tokens (151 MB of float32; the bundled model's 6 x 12
heads at 512 tokens are half that). The eager path holds every layer's weights and then one
float32 copy, so a request's peak is several times the array. At 512 tokens, in a fresh
process (one ``attention_pass``, load 1), a BERT-base-sized pass took 3.6 s and raised the
process's resident size by 0.73 GB; a BERT-large-sized one (24 layers x 16 heads, 403 MB of
weights) took 8.7 s and raised it by 2.2 GB (high-water mark 2.7 GB for one request), over the
3 GB a server with that model is given. BERT-large therefore reads at most 313 tokens here
(144 MB of weights, as BERT-base at 512); models no larger than BERT-base read their full
length. ``python -m bench.attention --model FOLDER`` times the page's analysis at this cap
(bench/README.md, "Real model sizes")."""


def attention_tokens(model) -> int:
    """Most tokens the Attention page reads with ``model``: its ``max_length``, or fewer so
    that ``layers x heads x tokens^2`` stays within :data:`MAX_ATTENTION_VALUES` (at least
    16 tokens)."""
    config = model.encoder.config
    heads = int(getattr(config, "num_attention_heads", None) or getattr(config, "n_heads", 12))
    fits = int((MAX_ATTENTION_VALUES / (model.num_layers * heads)) ** 0.5)
    return max(16, min(model.max_length, fits))


def attention_note(model, tokens: int) -> str:
    """What the Attention page says when an input was cut at ``tokens`` tokens (the most
    :func:`attention_tokens` allows ``model``)."""
    if tokens >= model.max_length:
        return (
            f"The input is longer than this model's limit of {model.max_length} tokens: only "
            f"the first **{tokens} tokens** are shown. The model never sees the rest."
        )
    config = model.encoder.config
    heads = getattr(config, "num_attention_heads", None) or getattr(config, "n_heads", "?")
    return (
        f"Only the first **{tokens} tokens** are read here (the model could read "
        f"{model.max_length}): its {model.num_layers} layers x {heads} heads keep "
        f"{model.num_layers * heads:,} attention matrices, which at more tokens take too much "
        "of this server's memory for one request. Shorten the text to see its end."
    )


MAX_LENS_MASKS = 20
"""Most [MASK]s the masked-LM lens predicts in one request (later masks stay masked, unread
by the lens, and the page says so). The lens applies the head to every layer at every mask:
``(layers + 1) x masks x vocabulary`` logits, and the page draws one chart per mask. With 102
masks in 512 tokens a BERT-base-sized request kept 13 x 102 x 30,522 float32 logits (162 MB,
twice with the softmax) and took 1.7 s; BERT-large-sized 25 x 102 (311 MB) took 20.7 s at load
4. Twenty masks take a fifth of that, and the head runs one layer at a time, so a request holds
one layer's logits at once."""


def lens_masks_note(found: int, limit: int = MAX_LENS_MASKS) -> str | None:
    """What the lens says when a text has ``found`` masks, more than ``limit``; else None."""
    if found <= limit:
        return None
    return (
        f"The sentence has {found} masks; the lens predicts the first {limit} (it asks every "
        "layer about each mask, and draws one chart per mask)."
    )


RESULTS_BYTES = 448 * 2**20
"""Bytes of cached results the server keeps (every memo of :data:`explorer.ui.compute.POOL`)
with the bundled model loaded: see that pool for the measurements behind it."""

BUNDLED_WEIGHT_BYTES = 90_861_056
"""Bytes of the bundled model's weights (``Model.weight_bytes``): the part of a server's
memory :data:`RESULTS_BYTES` was measured beside."""

MIN_RESULTS_BYTES = 128 * 2**20
"""The least :func:`results_budget` gives: one BERT-base-sized corpus of the token cap (every
layer and pooling, about 25 MB), its maps and probes, and a Word in context request still fit."""


def results_budget(weight_bytes: int) -> int:
    """Bytes of cached results a server may keep while its models' weights take
    ``weight_bytes``: :data:`RESULTS_BYTES` less every byte of weights beyond the bundled
    model's, at least :data:`MIN_RESULTS_BYTES`. A shared server's 2 GB holds weights and
    results together: it starts at 0.55-0.6 GB without weights, BERT-base with its
    random-weights baseline adds 0.84 GB, and one session's walk of every page with them and
    the bundled pool of 448 MB already reached 2.0 GB (``python -m bench.soak --solo --model
    FOLDER``, bench/README.md "Real model sizes"); with BERT-base loaded the results get 128 MB."""
    return max(MIN_RESULTS_BYTES, RESULTS_BYTES - max(0, weight_bytes - BUNDLED_WEIGHT_BYTES))
