"""The app's pictures in a notebook: one function per page's main picture.

Each takes a model (``explorer.load_model()``, a model name, or None for the bundled one) and
the page's inputs, and returns what the page draws for the same inputs, built by the same
function of :mod:`explorer.figures` from the same numbers: a plotly figure with the page's
what-to-notice sentence as its subtitle and in ``figure.layout.meta["notice"]``::

    import explorer
    from explorer import plot

    model = explorer.load_model()
    plot.word_in_context(model, ["The bank vault.", "The river bank."], "bank")

Importing this module does not import Streamlit. Inputs are checked as the library checks
them (``ValueError``), with the library's limits, not the web app's.
"""

from __future__ import annotations

from explorer.plot._compare import compare
from explorer.plot._inside import attention, contextual
from explorer.plot._maps import projection
from explorer.plot._sentences import probe, similarity
from explorer.plot._text import Tokens, layers, tokens, word_in_context
from explorer.plot._why import Attribution, why_close

__all__ = [
    "Attribution",
    "Tokens",
    "attention",
    "compare",
    "contextual",
    "layers",
    "probe",
    "projection",
    "similarity",
    "tokens",
    "why_close",
    "word_in_context",
]
