"""Caps of the heavy views: the Attention page's tokens, the lens's masks, integrated
gradients' tokens, How contextual?'s sentences, and the bytes of cached results, each scaled
by the model in use (:mod:`explorer.server.limits` lists every cap)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.server.limits._scale import scaled, slower, token_counts

MAX_ATTRIBUTION_TOKENS = 128
"""Most tokens (both texts together, special tokens included) one "Why are these two close?"
reads under ``cls`` pooling, for the bundled model: integrated gradients run the model forward
and backward 34 to 514 times, so two 64-token texts took 7 s of one busy core and two
128-token texts 21 s (the mean, max and mean + max splits need one forward pass and no cap).
:func:`check_attribution` scales it by the model's cost."""


def check_attribution(model, tokens: Sequence[int], limit: int = MAX_ATTRIBUTION_TOKENS) -> None:
    """Raise ``ValueError`` (with what to do instead) when texts of ``tokens`` tokens are more
    than integrated gradients may read on ``model``: ``limit`` :func:`scaled` by its cost."""
    cap = scaled(model, limit)
    if sum(tokens) <= cap:
        return
    why = slower(model)
    first = getattr(model.tokenizer, "cls_token", None) or "first-token"  # <s> for RoBERTa
    raise ValueError(
        f"Attributing a {first} similarity runs the model forward and backward hundreds of times: "
        f"a request reads at most {cap:,} tokens of the two texts together"
        + (f" ({why})" if why else "")
        + f", and these have {sum(tokens):,}. Choose shorter texts, or mean or max pooling "
        "(their split needs one forward pass)."
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

BASELINE_IDLE_SECONDS = 120.0
"""A random-weights baseline nobody asked for in this long leaves the server's models (at the
next request for any model): it is rebuilt from the trained model in about 1 s (BERT-base-sized,
0.9 s), and its results stay in the caches meanwhile. Kept, it held 418 MB (BERT-base) for the
rest of a class's visit after one comparison: eight BERT-base-sized sessions stayed over 2 GB
(``python -m bench.soak --sessions 8 --model FOLDER``)."""

MIN_RESULTS_BYTES = 128 * 2**20
"""The least :func:`results_budget` gives: one BERT-base-sized corpus of the token cap (every
layer and pooling, about 25 MB), its maps and probes, and a Word in context request still fit."""


def results_budget(weight_bytes: int) -> int:
    """Bytes of cached results a server may keep while its models' weights take
    ``weight_bytes`` (every model alive, trained and random-weights, at most
    ``EXPLORER_MODEL_MEMORY``): :data:`RESULTS_BYTES` less every byte of weights beyond the
    bundled model's, at least :data:`MIN_RESULTS_BYTES`: weights and results together stay
    within ``EXPLORER_MODEL_MEMORY`` + :data:`MIN_RESULTS_BYTES` (unless one model alone is
    larger than that budget). A shared server's 2 GB holds weights and results together: it
    starts at 0.55-0.6 GB without weights, BERT-base with its random-weights baseline adds 0.84
    GB, and one session's walk of every page with them and the bundled pool of 448 MB already
    reached 2.0 GB (``python -m bench.soak --solo --model FOLDER``, bench/README.md "Real model
    sizes"); with BERT-base loaded the results get 128 MB."""
    return max(MIN_RESULTS_BYTES, RESULTS_BYTES - max(0, weight_bytes - BUNDLED_WEIGHT_BYTES))
