"""The explorer's pages, in menu order: one place for their files, titles, icons and blurbs
(the router builds the menu from it, the home page its cards)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    """A page: its script under ``pages/``, menu title, Material icon and a home-page blurb."""

    path: str
    title: str
    icon: str
    blurb: str = ""


HOME = PageInfo("pages/home.py", "Home", ":material/home:")

PAGES = (
    HOME,
    PageInfo(
        "pages/tokens.py",
        "Tokens",
        ":material/text_fields:",
        "How the tokenizer cuts your text into word pieces (*embeddings* becomes "
        "`em ##bed ##ding ##s`), with ids, segment ids and character offsets.",
    ),
    PageInfo(
        "pages/layers.py",
        "Layers",
        ":material/stacks:",
        "Each token's vector at every layer: value distributions, per-layer statistics, "
        "the few outlier ('rogue') dimensions and vector norms.",
    ),
    PageInfo(
        "pages/context.py",
        "Word in context",
        ":material/compare_arrows:",
        "One word in many sentences: how similar are the vectors of *bank* by the river and "
        "*bank* with a vault, layer by layer?",
    ),
    PageInfo(
        "pages/projections.py",
        "Projections",
        ":material/scatter_plot:",
        "Whole sentences or word occurrences as points in 2-D (PCA, t-SNE, UMAP), coloured "
        "by sense or topic, to see what clusters.",
    ),
    PageInfo(
        "pages/probe.py",
        "Which layer?",
        ":material/science:",
        "Train a small linear probe on every layer to see where word senses or topics "
        "become easy to tell apart.",
    ),
    PageInfo(
        "pages/similarity.py",
        "Similarity & search",
        ":material/search:",
        "Compare sentences by cosine similarity and search a small collection by meaning.",
    ),
)
