"""The pages' built-in examples as warm-ups (:mod:`explorer.server.prewarm`), and the thread app.py
starts when ``EXPLORER_PREWARM`` is set.

Each warm-up makes the calls its page makes on a first visit with no input, with the same
arguments, through the same caches (the widgets' defaults are written out here: a test runs
every page after :data:`WARMUPS` and checks that the page ran the model no more). What a page
draws from cached results (figures, tables) is per run and is not prewarmed.
"""

from __future__ import annotations

import logging
import sys
import threading

from explorer.data import examples
from explorer.model.ref import ModelRef
from explorer.server import prewarm
from explorer.ui.model_in_use import load, settings

# The modules of the warm-ups are imported in them: app.py imports this module on every server,
# and they bring torch and scikit-learn (4 s), which the first page drawn does not wait for.

_LOG = logging.getLogger(__name__)


def _tokens(model_ref: ModelRef) -> None:
    from explorer.ui import compute

    compute.tokenize(model_ref, examples.TOKENS_TEXT, None)
    compute.tokenize(model_ref, examples.TOKENS_WORD)


def _layers(model_ref: ModelRef) -> None:
    from explorer.ui import compute

    compute.tokenize(model_ref, examples.TUTORIAL)
    compute.hidden_states(model_ref, examples.TUTORIAL)


def _attention(model_ref: ModelRef) -> None:
    from explorer.ui import attention_heads

    attention_heads.analysis(model_ref, examples.TUTORIAL, None)


def _ablation(model_ref: ModelRef) -> None:
    from explorer.ui import attention_heads

    attention_heads.prewarm_measures(model_ref)


def _lens(model_ref: ModelRef) -> None:
    from explorer.ui import attention_heads

    try:
        attention_heads.masked_lm(model_ref)
    except ValueError:
        return  # no masked-LM head: the page says so, nothing to compute
    attention_heads.layer_predictions(model_ref, examples.MASKED, 10)


def _context(model_ref: ModelRef) -> None:
    from explorer import context
    from explorer.data import uploads
    from explorer.server import limits
    from explorer.ui import compute

    lines, _ = context.parse_labelled_sentences(context.DEFAULT_TEXT)
    kept = compute.cap_tokens(model_ref, uploads.from_lists(lines), limits.MAX_CONTEXT_TOKENS)
    sentences = tuple(kept.data.texts)
    compute.word_layer_vectors(model_ref, sentences, context.DEFAULT_WORD, "mean")
    compute.context_token_states(model_ref, sentences)


def _contextual(model_ref: ModelRef) -> None:
    from explorer.ui import compute, how_contextual

    rows, _ = how_contextual.lesson_rows(model_ref)
    how_contextual.measurements(model_ref, rows)
    word, *_ = rows[0]  # the page's first word, its sentences in order
    texts = tuple(text for w, _, text in rows if w == word)
    compute.word_layer_vectors(model_ref, texts, word)


def _projections(model_ref: ModelRef) -> None:
    from explorer.choice import VectorChoice
    from explorer.maps import ProjectionParams
    from explorer.server import limits
    from explorer.ui import compute, projection_maps, sources
    from explorer.ui.sourcetypes import BuiltinSet

    source = BuiltinSet(sources.dataset("Topics").load())  # the page's default set
    points, texts, *_ = projection_maps.source_points(
        model_ref, source, VectorChoice("mean", "last"), None
    )
    compute.embed_corpus(model_ref, texts)
    params, _ = limits.cap_3d(ProjectionParams("pca", 2), len(texts))
    projection_maps.fit(points, params)


def _probe(model_ref: ModelRef) -> None:
    from explorer.data import corpora
    from explorer.ui import sources, which_layer

    frame = corpora.load_dataset(sources.PROBE_SETS["senses"][1])
    words = tuple(frame["word"].str.strip())
    kept = which_layer.sample_rows(
        model_ref, tuple(frame["text"]), tuple(frame["label"].astype(str).str.strip()), words
    )
    if kept.note:
        frame = frame.iloc[kept.rows].reset_index(drop=True)
    texts, words = tuple(frame["text"]), tuple(frame["word"].str.strip())
    labels = tuple(str(label).strip() for label in frame["label"])
    data = which_layer.ProbeData(texts, labels, words, 5)
    features = which_layer.word_features(model_ref, texts, words)
    for strategy in ["mean"] if features.num_split == 0 else ["first", "mean", "max"]:
        which_layer.layer_scores(model_ref, data, data.choice(strategy))


def _similarity(model_ref: ModelRef) -> None:
    from explorer.data import uploads
    from explorer.ui import compute, sources

    lines = uploads.texts_from_lines(examples.SIMILARITY_SENTENCES, None)
    compute.embed_corpus(model_ref, tuple(lines))
    kept = compute.cap_tokens(model_ref, sources.remarks().load())
    compute.embed_corpus(model_ref, tuple(kept.data.texts))
    compute.embed_corpus(model_ref, (examples.SIMILARITY_QUERY.strip(),))
    # "Why are these two close?" opens on the query and its best result (mean pooling, last
    # layer, the page's defaults): one forward pass of the two texts
    from explorer.choice import VectorChoice
    from explorer.ui import cosine_split, similarity_search

    query = examples.SIMILARITY_QUERY.strip()
    choice = VectorChoice("mean", "last")
    results, _ = similarity_search.search_texts(model_ref, kept.data.texts, query, choice, 5)
    cosine_split.explanation(model_ref, query, results["text"].iloc[0], "mean", "last")


WARMUPS = (
    prewarm.Warmup("pages/home.py", "the model", load),
    prewarm.Warmup("pages/tokens.py", "the text's and the word's tokens", _tokens),
    prewarm.Warmup("pages/layers.py", "the tutorial's hidden states", _layers),
    prewarm.Warmup("pages/attention.py", "the tutorial's attentions", _attention),
    prewarm.Warmup("pages/attention.py", "the masked-LM lens", _lens),
    prewarm.Warmup("pages/attention.py", "head ablation's measures", _ablation),
    prewarm.Warmup("pages/context.py", "the word in its sentences", _context),
    prewarm.Warmup("pages/contextual.py", "the classic measurements", _contextual),
    prewarm.Warmup("pages/projections.py", "the topics' PCA map", _projections),
    prewarm.Warmup("pages/probe.py", "a probe on every layer, word senses", _probe),
    prewarm.Warmup("pages/similarity.py", "the sentences, the remarks, the query", _similarity),
)
"""Every page's built-in example, in menu order."""


class _ThisThreadOnly(logging.Filter):
    """Drops Streamlit's "missing ScriptRunContext" warnings of the prewarm thread: it calls
    the pages' cached functions outside any session, on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.threadName != "explorer-prewarm"


def _log_done(report: prewarm.Report) -> None:
    print(report.summary(), file=sys.stderr, flush=True)


_once = threading.Lock()


def prewarm_soon() -> None:
    """Start the prewarm thread (:func:`explorer.server.prewarm.start`) if the operator set
    ``EXPLORER_PREWARM``; call it after a page is drawn (app.py does, on every run: only the
    first call does anything). A malformed value is said once in the server's log, and the
    server runs without prewarm."""
    if not _once.acquire(blocking=False):
        return
    try:
        models = prewarm.prewarm_models(settings())
    except ValueError as error:
        _LOG.error("%s", error)
        return
    if models:
        from explorer.ui._streamlit_runtime import script_run_context

        logging.getLogger(script_run_context.__name__).addFilter(_ThisThreadOnly())
        prewarm.start(WARMUPS, models, _log_done)
