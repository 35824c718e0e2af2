"""Why are these two close? The Similarity page's split of one cosine into token pairs."""

from __future__ import annotations

import html
from dataclasses import dataclass

import plotly.graph_objects as go

from explorer.explain import Explanation, explain_similarity
from explorer.figures.explain import pair_heatmap, shaded_tokens_html
from explorer.figures.explain_notices import explanation_notice
from explorer.layers import Layers
from explorer.model import Model
from explorer.plot._common import as_model, with_notice


@dataclass(frozen=True)
class Attribution:
    """What the page shows under [CLS] pooling, where no exact split into token pairs exists:
    each text's tokens shaded by their integrated-gradients share (HTML; a notebook displays
    it), the explanation itself and the page's notice."""

    explanation: Explanation
    notice: str

    def _repr_html_(self) -> str:
        sides = (shaded_tokens_html(self.explanation, side) for side in ("a", "b"))
        return f"<p>{html.escape(self.notice)}</p>" + "".join(f"<div>{s}</div>" for s in sides)


def why_close(
    model: Model | str | None,
    a: str,
    b: str,
    pooling: str = "mean",
    layers: Layers = "last",
) -> go.Figure | Attribution:
    """Why ``a`` and ``b`` are close under ``pooling`` and ``layers``: the page's token x token
    heatmap of the parts of their cosine (they sum to it), with the page's notice. Under
    ``"cls"`` pooling there are no exact pairs: the page's attribution per token (integrated
    gradients, hundreds of passes, with a progress bar) comes back as :class:`Attribution`."""
    for name, text in (("a", a), ("b", b)):
        if not isinstance(text, str):
            raise ValueError(f"{name} must be a string, not {type(text).__name__}.")
    model = as_model(model)
    if pooling != "cls":
        explained = explain_similarity(model, a, b, pooling, layers)
        return with_notice(pair_heatmap(explained), explanation_notice(explained))
    from tqdm.auto import tqdm

    with tqdm(desc="Integrated gradients", unit="step") as bar:

        def report(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        explained = explain_similarity(model, a, b, pooling, layers, report=report)
    return Attribution(explained, explanation_notice(explained))
