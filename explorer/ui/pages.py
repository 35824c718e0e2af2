"""The explorer's pages, in menu order: one place for their files, titles, icons and blurbs
(the router builds the menu from it, the home page its cards)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    """A page: its script under ``pages/``, menu title, Material icon, a home-page blurb, and
    the heading and introduction the page opens with (Markdown)."""

    path: str
    title: str
    icon: str
    blurb: str = ""
    heading: str = ""
    intro: str = ""


HOME = PageInfo(
    "pages/home.py",
    "Home",
    ":material/home:",
    heading="Contextual Embedding Explorer",
    intro=(
        "A static embedding such as word2vec gives a word one vector, whatever sentence it appears "
        "in. A transformer encoder like BERT rewrites the vector of every token, layer by layer, "
        "using the whole sentence around it, so *bank* in “river bank” and in “bank vault” ends up "
        "with different vectors. This app lets you look at each step, from the tokens the model "
        "reads to the vectors its last layer gives out."
    ),
)

PAGES = (
    HOME,
    PageInfo(
        "pages/tokens.py",
        "Tokens",
        ":material/text_fields:",
        "How the tokenizer cuts your text into word pieces, with ids, segment ids and "
        "character offsets.",
    ),
    PageInfo(
        "pages/layers.py",
        "Layers",
        ":material/stacks:",
        "Each token's vector at every layer: value distributions, per-layer statistics, "
        "the few outlier ('rogue') dimensions and vector norms.",
        heading="Hidden states layer by layer",
        intro=(
            "An encoder turns every token into a vector at its embedding layer (layer 0) and then "
            "rewrites it in each of its encoder layers. Here is what those vectors look like: the "
            "distribution of one token's values, how it changes across layers, per-layer "
            "statistics, the few *outlier dimensions* that dwarf all the others, and how alike "
            "the layers are to one another."
        ),
    ),
    PageInfo(
        "pages/attention.py",
        "Attention",
        ":material/hub:",
        "Where every head looks, layer by layer: the special tokens, the previous token; why "
        "raw weights mislead (rollout, norm-weighted), and with a masked-LM, what it guesses "
        "for a masked word.",
        heading="Attention",
        intro=(
            "In every layer, each **attention head** rebuilds a token's vector as a weighted mix "
            "of the vectors of all tokens; the weights of one token's row add up to 1. Here you "
            "can see those weights for every layer and head, what each head tends to do, and "
            "why a large weight is not always a large influence. With a masked-language model, "
            "the lens below shows which word the model guesses for `[MASK]`, layer by layer."
        ),
    ),
    PageInfo(
        "pages/context.py",
        "Word in context",
        ":material/compare_arrows:",
        "One word in many sentences: how similar are the vectors of *bank* by the river and "
        "*bank* with a vault, layer by layer?",
        heading="Word in context",
        intro=(
            "The same word gets a different vector in every sentence. Type a few sentences (one per"
            " line) and a word that occurs in them: the page compares every occurrence by **cosine "
            "similarity**, under the layer strategy you pick and layer by layer. Does the *river* "
            "bank end up closer to the other river bank than to the bank that was robbed?"
        ),
    ),
    PageInfo(
        "pages/contextual.py",
        "How contextual?",
        ":material/school:",
        "The classic measurements of how contextual word vectors are (Ethayarajh 2019; "
        "Coenen et al. 2019), layer by layer on the model in use, beside the papers' findings.",
        heading="How contextual are the model's word vectors?",
        intro=(
            "Two well-known papers measured how much BERT's vectors depend on the sentence. "
            "This page repeats their measurements, layer by layer, on the model in use and the "
            "built-in sentences about ambiguous words (*bank*, *bat*, *spring*, ...):\n\n"
            "- **Self-similarity**: how alike one word's vectors are across different sentences "
            "(1 = the same vector everywhere, like a static embedding);\n"
            "- **Intra-sentence similarity**: how alike the words of one sentence are to the "
            "sentence's average (high = the sentence pulls its words together);\n"
            "- **Maximum explainable variance**: how much of a word's vectors one single static "
            "vector could stand for (100 % = no context at all);\n"
            "- **Word senses**: how often a word's vector is closest to the average vector of "
            "its own sense.\n\n"
            "All vectors of a layer tend to point the same way (*anisotropy*), so even random "
            "words look alike: the first three are shown minus what random tokens give at that "
            "layer."
        ),
    ),
    PageInfo(
        "pages/projections.py",
        "Projections",
        ":material/scatter_plot:",
        "Whole sentences or word occurrences as points in 2-D (PCA, t-SNE, UMAP), coloured "
        "by sense or topic, to see what clusters.",
        heading="Projections",
        intro=(
            "A sentence vector has hundreds of numbers. **PCA**, **UMAP** and **t-SNE** squeeze "
            "them into two or three so you can see which texts the model places close together. "
            "Colours are the texts' labels: when they form separate clusters, the vectors encode "
            "the label. PCA keeps the directions of largest spread (distances are faithful but "
            "crowded); UMAP and t-SNE keep each point's neighbours (clusters are clear, distances "
            "between them mean little). **Click a point** to see its nearest texts in the full "
            "space."
        ),
    ),
    PageInfo(
        "pages/probe.py",
        "Which layer?",
        ":material/science:",
        "Train a small linear probe on every layer to see where word senses or topics "
        "become easy to tell apart.",
        heading="Which layer?",
        intro=(
            "Where in the network does the model know a word's **sense**, a text's **topic** or its"
            " **sentiment**? A *probe* is a simple linear classifier (logistic regression) trained "
            "on one layer's vectors; if it predicts the label well on texts it has not seen, the "
            "label can be read off that layer. Every layer is probed with the same stratified "
            "cross-validation folds, and the dashed line is what always guessing the most common "
            "label scores."
        ),
    ),
    PageInfo(
        "pages/similarity.py",
        "Similarity & search",
        ":material/search:",
        "Compare sentences by cosine similarity and search a small collection by meaning.",
        heading="Similarity & search",
        intro=(
            "How alike are two sentences? That depends on how each sentence's token vectors become "
            "one vector (*pooling*). Below, the same sentences are compared under every pooling, "
            "side by side, and **Spearman's ρ** says whether two poolings at least *rank* the pairs"
            " the same way (1 = same order of most to least similar pairs)."
        ),
    ),
    PageInfo(
        "pages/compare.py",
        "Compare models",
        ":material/difference:",
        "Two encoders side by side: how their tokenizers cut the same words, and which layer "
        "of one is most like each layer of the other (CKA).",
        heading="Compare two models",
        intro=(
            "Model A is the one chosen in the sidebar; pick **model B** below: another encoder, "
            "or model A with random weights (what training did). The same text goes through "
            "both tokenizers, and the same words through every layer of both models. "
            "**Linear CKA** (Kornblith et al. 2019) then says how alike each layer of A is to "
            "each layer of B: 1 when they place the words alike up to a rotation and scale. "
            "A word's vector is the mean of its pieces, so models that cut words differently "
            "still compare the same words."
        ),
    ),
)


@dataclass(frozen=True)
class ModelTokens:
    """What a home card names of the model in use: its tokenizer's special tokens (``None``
    for one it has not) and the pieces it cuts *embeddings* into."""

    cls: str | None
    sep: str | None
    mask: str | None
    pieces: tuple[str, ...]

    @classmethod
    def of(cls, tokenizer) -> ModelTokens:
        """The tokens of a Hugging Face ``tokenizer`` (no model needed)."""
        return cls(
            tokenizer.cls_token,
            tokenizer.sep_token,
            tokenizer.mask_token,
            tuple(tokenizer.tokenize("embeddings")),
        )


def _code(token: str) -> str:
    """``token`` as Markdown code (a backtick inside: a longer fence around it)."""
    return f"`` {token} ``" if "`" in token else f"`{token}`"


def card_blurb(page: PageInfo, tokens: ModelTokens | None = None) -> str:
    """The home card of ``page``: its blurb, or with ``tokens`` (the model in use's) the
    Tokens and Attention cards naming that model's own tokens (``<s>`` and ``</s>`` for
    RoBERTa or MPNet, not [CLS] and [SEP]; the masked word only for a model whose vocabulary
    has a mask token)."""
    if tokens is None:
        return page.blurb
    if page.path == "pages/tokens.py" and tokens.pieces:
        return (
            "How the tokenizer cuts your text into word pieces (*embeddings* becomes "
            f"{_code(' '.join(tokens.pieces))}), with ids, segment ids and character offsets."
        )
    if page.path == "pages/attention.py":
        specials = [_code(t) for t in dict.fromkeys((tokens.cls, tokens.sep)) if t]
        return (
            "Where every head looks, layer by layer: "
            + ", ".join([*specials, "the previous token"])
            + "; why raw weights mislead (rollout, norm-weighted)"
            + (f", and what a masked-LM guesses for {_code(tokens.mask)}." if tokens.mask else ".")
        )
    return page.blurb


def page_info(path: str) -> PageInfo:
    """The page whose script is ``path`` (``"pages/tokens.py"``)."""
    return next(p for p in PAGES if p.path == path)
