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
- not at all, because the model's size does not change their cost: how long an unused
  random-weights baseline stays loaded (:data:`BASELINE_IDLE_SECONDS`), points drawn
  (:data:`MAX_POINTS`, :data:`MAX_POINTS_3D`), occurrences (:data:`MAX_OCCURRENCES`), the
  lens's masks (:data:`MAX_LENS_MASKS`: the head runs one layer at a time), the probes' folds.

``python -m bench.soak --model FOLDER`` walks every page with its largest inputs on a model
folder of real size (``python -m bench.model_folders``); bench/README.md, "Real model sizes",
gives what it measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from explorer.data import sampling
from explorer.server.limits._pair import MAX_PAIR_TOKENS, pair_note, pair_tokens
from explorer.server.limits._scale import (
    BUNDLED_STATE,
    BUNDLED_WORK,
    Scale,
    costlier,
    memory_factor,
    scaled,
    slower,
    token_counts,
    work_factor,
)
from explorer.server.limits._views import (
    BASELINE_IDLE_SECONDS,
    BUNDLED_WEIGHT_BYTES,
    MAX_ATTENTION_VALUES,
    MAX_ATTRIBUTION_TOKENS,
    MAX_LENS_MASKS,
    MAX_LESSON_TOKENS,
    MIN_RESULTS_BYTES,
    MIN_SENSE_SENTENCES,
    RESULTS_BYTES,
    attention_note,
    attention_tokens,
    cap_senses,
    check_attribution,
    lens_masks_note,
    results_budget,
)

MAX_TOKENS = 80_000
"""Most tokens one request embeds (texts after truncation to the model's length, special
tokens included). At 100,000 the largest Projections request (5,000 lines of 40 words, PCA)
took 33 s on a quiet 2-core machine (``python -m bench.soak --sessions 1 --pages
projections``), over the 30 s every request must stay under."""

MAX_OCCURRENCES = 5_000
"""Most occurrences of a word drawn as points."""


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
    from explorer import words
    from explorer.words import find_occurrences

    texts = list(texts)
    found = find_occurrences(model, texts, word)
    kept, note = cap_occurrences(len(found), limit)
    if note is not None:
        texts = texts[: found[kept - 1].text_index + 1]
    occurrences, vectors = words.word_layer_vectors(model, texts, word, subwords)
    return occurrences[:kept], np.ascontiguousarray(vectors[:, :kept]), note


MAX_POINTS = 20_000
"""Most points one map draws (WebGL keeps 20,000 smooth); larger sets are sampled."""


def sample_points(n: int, limit: int = MAX_POINTS, seed: int = 0) -> tuple[np.ndarray, str | None]:
    """:func:`explorer.data.sampling.sample_points` under the server's cap (:data:`MAX_POINTS`)."""
    return sampling.sample_points(n, limit, seed)


MAX_PROBE_ROWS = 1_000
"""Most rows of a saved corpus one probe reads (a stratified random sample beyond): a linear
probe on 2,000 x 384 vectors takes about 1 s per layer and pooling with 5 folds on one core, and
its control task (random labels, Hewitt and Liang 2019) several times that: it fits slowly."""


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


MAX_PROBE_TEXTS = 400
"""Most texts one "Which layer?" request embeds and probes (a stratified random sample beyond,
:func:`explorer.probing.sample.probe_sample`). The default four poolings x 7 layers x 5 folds
are 140 logistic regressions, and as many again for the control task: at 800 rows 2.3 s of
CPU for the probes but 14 s for the control task (random labels fit slowly), 7 s at 400
(``python -m bench.probe``; BERT-base-sized: ``--model FOLDER``)."""

MAX_PROBE_TOKENS = 60_000
"""Most tokens one "Which layer?" request embeds: the forward pass (about 20 s for
:data:`MAX_TOKENS` on a quiet 2-core machine) shares the 30 s with the probes."""


def probe_caps(model) -> dict:
    """The keyword arguments of :func:`explorer.probing.sample.probe_sample` for ``model``:
    :data:`MAX_PROBE_TEXTS` rows scaled by its memory per token, :data:`MAX_PROBE_TOKENS` scaled
    by its work per token, and why they are smaller than the bundled model's (or None)."""
    return {
        "max_rows": scaled(model, MAX_PROBE_TEXTS, "memory"),
        "max_tokens": scaled(model, MAX_PROBE_TOKENS, "work"),
        "why": costlier(model),
    }


MAX_PROBE_TRAIN_ROWS = 1_600
"""Most training rows one layer's probe (and its control task) sees over all its folds, ``rows x
(folds - 1)``: a probe's time grows with it. 400 rows get 5 folds (the default), 200 rows 9."""


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


__all__ = [
    "BASELINE_IDLE_SECONDS",
    "BUNDLED_FRAMES",
    "BUNDLED_STATE",
    "BUNDLED_WEIGHT_BYTES",
    "BUNDLED_WORK",
    "Kept",
    "MAX_ATTENTION_VALUES",
    "MAX_ATTRIBUTION_TOKENS",
    "MAX_CNN_VALUES",
    "MAX_CONTEXT_TOKENS",
    "MAX_LENS_MASKS",
    "MAX_LESSON_TOKENS",
    "MAX_MOTION_POINTS",
    "MAX_OCCURRENCES",
    "MAX_PAIR_TOKENS",
    "MAX_POINTS",
    "MAX_POINTS_3D",
    "MAX_PROBE_ROWS",
    "MAX_PROBE_TEXTS",
    "MAX_PROBE_TOKENS",
    "MAX_PROBE_TRAIN_ROWS",
    "MAX_TOKENS",
    "MIN_RESULTS_BYTES",
    "MIN_SENSE_SENTENCES",
    "RESULTS_BYTES",
    "Scale",
    "Texts",
    "attention_note",
    "attention_tokens",
    "cap_3d",
    "cap_occurrences",
    "cap_senses",
    "cap_tokens",
    "check_attribution",
    "costlier",
    "lens_masks_note",
    "memory_factor",
    "motion_points",
    "motion_rows",
    "pair_note",
    "pair_tokens",
    "probe_folds",
    "results_budget",
    "sample_points",
    "scaled",
    "slower",
    "token_counts",
    "word_layer_vectors",
    "work_factor",
]
