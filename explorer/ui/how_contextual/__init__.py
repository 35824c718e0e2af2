"""The "How contextual?" page's Streamlit side (``_lesson``): the classic measurements on the
built-in sense sentences, cached, their chart beside the papers' findings, one word up close."""

from explorer.ui.how_contextual._lesson import (
    chart,
    headline_code,
    isotropy,
    lesson_rows,
    measured,
    measurements,
    one_word,
    references,
)

__all__ = [
    "chart",
    "headline_code",
    "isotropy",
    "lesson_rows",
    "measured",
    "measurements",
    "one_word",
    "references",
]
