"""The built-in examples the pages open with (no input from the visitor), in one place: the
pages draw them, and :mod:`explorer.server.prewarm` computes them ahead of the first visitor.

The pages' other built-in inputs live with the data they come from: Word in context's sentences
in :mod:`explorer.context` (``DEFAULT_TEXT``, ``DEFAULT_WORD``), the example sets of
Projections, Which layer? and the search in :mod:`explorer.data.corpora`.
"""

from __future__ import annotations

TUTORIAL = (
    "After stealing money from the bank vault, the bank robber was seen fishing on the "
    "Mississippi river bank."
)
"""The sentence of the classic BERT word-embedding tutorial (Layers, Attention)."""

TOKENS_TEXT = "Contextual embeddings help BERT tell a river bank from a bank vault."
TOKENS_PAIR = "After stealing money from the bank vault, the bank robber went fishing."
TOKENS_WORD = "embeddings"

ATTENTION_PAIR = "Where did the robber go?"
MASKED = "After stealing money from the bank [MASK], the bank robber was seen fishing on the river."

SIMILARITY_SENTENCES = (
    "The bank raised its interest rates again.\n"
    "She opened a savings account at the bank.\n"
    "We had a picnic on the grassy bank of the river.\n"
    "The canoe drifted slowly towards the muddy bank.\n"
    "The striker scored twice in the second half.\n"
    "Our team lost the final on penalties."
)
SIMILARITY_QUERY = "Which team won the game?"
