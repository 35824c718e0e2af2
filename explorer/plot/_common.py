"""What every :mod:`explorer.plot` function shares: the model argument, the notice on the
figure and the notebook progress bar."""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import plotly.graph_objects as go

from explorer.model import Model

WRAP = 110
"""Characters per line of the what-to-notice subtitle (plotly does not wrap titles)."""

TITLE_PX, LINE_PX = 72, 17
"""Top margin for a title (one or two lines) and for each line of the subtitle, in pixels."""

PROGRESS_MIN_TEXTS = 64
"""Fewer texts than this run without a progress bar (a fraction of a second on the CPU)."""


def as_model(model: Model | str | None) -> Model:
    """``model`` itself, or the model a name (or None: the bundled one) loads."""
    if isinstance(model, Model):
        return model
    if model is None or isinstance(model, str):
        from explorer.model import load_model

        return load_model(model)
    raise ValueError(
        f"model must be an explorer.Model (explorer.load_model()) or a model name, not "
        f"{type(model).__name__}."
    )


def as_texts(texts: str | Sequence[str], what: str = "texts") -> list[str]:
    """``texts`` as a list of strings: one text per line of a string, or the sequence's items
    (each a string). Raises ``ValueError`` for anything else."""
    if isinstance(texts, str):
        texts = [line for line in texts.splitlines() if line.strip()]
    if not isinstance(texts, Sequence) or not all(isinstance(t, str) for t in texts):
        raise ValueError(f"{what} must be a list of strings (or one string, a text per line).")
    return list(texts)


def with_notice(figure: go.Figure, notice: str) -> go.Figure:
    """``figure`` with ``notice`` (plain text) as its subtitle and in ``layout.meta["notice"]``;
    the top margin grows to fit the subtitle's lines. Traces are left as they are."""
    lines = textwrap.wrap(notice, WRAP) or [""]
    breaks = (figure.layout.title.text or "").count("<br>")
    meta = dict(figure.layout.meta) if isinstance(figure.layout.meta, dict) else {}
    figure.update_layout(
        title_subtitle_text="<br>".join(html.escape(line, quote=False) for line in lines),
        meta={**meta, "notice": notice},
        # The title at the top, the margin below it as tall as the title and the subtitle.
        title_yref="container",
        title_y=1,
        title_yanchor="top",
        title_pad_t=12 + LINE_PX * breaks,  # plotly anchors a title's last line, not its first
        margin_t=TITLE_PX + LINE_PX * (len(lines) + breaks),
    )
    return figure


@contextmanager
def progress(total: int, what: str) -> Iterator[Callable[[int, int], None] | None]:
    """A ``(done, total)`` callback that moves a tqdm bar (a widget in Jupyter), or None
    when ``total`` is below :data:`PROGRESS_MIN_TEXTS`."""
    if total < PROGRESS_MIN_TEXTS:
        yield None
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=what, unit="text")
    try:

        def report(done: int, _total: int) -> None:
            bar.update(done - bar.n)

        yield report
    finally:
        bar.close()
