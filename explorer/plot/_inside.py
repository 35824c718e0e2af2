"""Inside the model: the Attention page's overview and the How contextual? page's chart."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from explorer.attention import attention_pass, head_statistics
from explorer.figures.attention import overview_grid
from explorer.figures.attention_notices import what_to_notice
from explorer.figures.explain import classic_figure
from explorer.figures.explain_notices import classic_notice
from explorer.figures.isotropy import isotropy_notice
from explorer.model import Model
from explorer.plot._common import as_model, with_notice


def attention(model: Model | str | None, text: str, pair: str | None = None) -> go.Figure:
    """The Attention page's overview of ``text`` (and ``pair``, a second segment): every layer
    and head as a small heatmap, with the page's notice (where attention goes, the most
    positional head). Input longer than the model's limit is cut there."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, not {type(text).__name__}.")
    model = as_model(model)
    result = attention_pass(model, text, pair)
    cls = model.tokenizer.cls_token or "[CLS]"
    sep = model.tokenizer.sep_token or "[SEP]"
    stats = head_statistics(result.attentions, result.tokenization.tokens, cls, sep)
    figure = overview_grid(result.attentions)
    return with_notice(figure, what_to_notice(stats, cls, sep))


def contextual(model: Model | str | None, sentences: pd.DataFrame | None = None) -> go.Figure:
    """The How contextual? page's chart: anisotropy, self-similarity, intra-sentence
    similarity, maximum explainable variance and sense accuracy layer by layer, measured on
    ``sentences`` (columns ``word``, ``sense``, ``text``; default all the built-in ones), with
    the page's notices (one sentence per measure). Reading the sentences shows a progress bar."""
    from tqdm.auto import tqdm

    from explorer.explain import REFERENCES, classic_lesson

    model = as_model(model)
    if sentences is not None and not {"word", "sense", "text"} <= set(sentences.columns):
        raise ValueError("sentences must be a DataFrame with columns word, sense and text.")
    with tqdm(desc="Reading sentences", unit="text") as bar:

        def report(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        measures, senses = classic_lesson(model, sentences, progress=report)
    figure = classic_figure(measures, senses, mev_reference=REFERENCES["mev"].value)
    return with_notice(
        figure, " ".join([*classic_notice(measures, senses), isotropy_notice(measures)])
    )
