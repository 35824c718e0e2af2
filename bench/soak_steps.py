"""The soak's steps: every request a visitor can make of every page, with the largest inputs.

:data:`STEPS` lists them in order, page by page (:data:`PAGE_NAMES`): a page link with its bound
parameters (``open``, a new Streamlit session), a text pasted and applied, a radio or selectbox
choice, a CSV uploaded. Every page is there, with the Attention page's masked-LM lens (a text
of 512 tokens with dozens of masks, for a model with a masked-LM head: :attr:`Step.masked_lm`)
and the random-weights baseline where a page offers one (Projections' "Compare with"). The
inputs are generated (:func:`prose`, :func:`lines`, :func:`csv_file`...) from a random
generator of each session, step and round, so no session profits from another's cache.
:mod:`bench.soak` runs them.
"""

from __future__ import annotations

import random
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from explorer.data import uploads
from explorer.probing import datasets
from harness.browser import Tab
from harness.visits import RunCounter
from harness.widgets import widget

VOCABULARY = (
    "the of and to in is was for on that with as by at from his her it an were are which this "
    "be or has had not but their they one all there been new more when who would can will "
    "time people year city river money bank vault water music history school market garden "
    "village winter summer morning evening island mountain church station library kitchen "
    "window letter doctor teacher student company country family council children friend "
    "government university language science picture question reason surface weather journey "
    "quickly slowly carefully suddenly quietly always never often rarely perhaps together "
    "opened closed walked carried painted wrote built found lost watched heard remembered "
    "unbelievable extraordinary photosynthesis misunderstanding internationalisation "
).split()
"""Words for the generated texts (some split into several word pieces)."""


# -- the inputs ----------------------------------------------------------------------------------


def words(rng: random.Random, n: int) -> list[str]:
    """``n`` random words of :data:`VOCABULARY`."""
    return rng.choices(VOCABULARY, k=n)


def prose(rng: random.Random, chars: int) -> str:
    """Random words, about ``chars`` characters (a long text: 512 tokens after truncation)."""
    text = " ".join(words(rng, chars // 5 + 10))
    return text[:chars].rsplit(" ", 1)[0] + "."


def lines(rng: random.Random, count: int, per_line: int, word: str | None = None) -> str:
    """``count`` lines of ``per_line`` random words; ``word`` every fourth word when given."""
    out = []
    for k in range(count):
        row = words(rng, per_line)
        if word:
            row[::4] = [word] * len(row[::4])
        out.append(f"Line {k} " + " ".join(row) + ".")
    return "\n".join(out)


def context_text(rng: random.Random) -> str:
    """100 lines (the page's most) of 512 tokens, every other word "bank": the token cap
    (10,000) keeps about 19 lines and about 4,800 occurrences."""
    return "\n".join(
        " ".join(w for pair in zip(["bank"] * 255, words(rng, 255), strict=True) for w in pair)
        for _ in range(100)
    )


def masked_text(rng: random.Random, chars: int = 100_000) -> str:
    """Random words with a [MASK] every fifth word: after truncation to 512 tokens, about 90
    masks for the lens (which predicts the first :data:`explorer.server.limits.MAX_LENS_MASKS`)."""
    row = words(rng, chars // 5 + 10)
    row[::5] = ["[MASK]"] * len(row[::5])
    return " ".join(row)[:chars].rsplit(" ", 1)[0] + "."


def csv_file(rng: random.Random, folder: Path, name: str, with_word: bool) -> Path:
    """A CSV of 5,000 rows (the row limit) just under 5 MB (the byte limit,
    ``uploads.MAX_BYTES``): ``text,label`` with four labels, or ``text,word,label`` with two
    words of two senses each."""
    senses = {"bank": ("money", "river"), "bat": ("animal", "sport")}
    rows = ["text,word,label" if with_word else "text,label"]
    chars = uploads.MAX_BYTES // datasets.MAX_ROWS - 40  # room for quotes, labels, newline
    for k in range(datasets.MAX_ROWS):
        if with_word:
            word = ("bank", "bat")[k % 2]
            label = senses[word][k // 2 % 2]
            text = f"{label} {word} " + prose(rng, chars - 12)
            rows.append(f'"{text}",{word},{label}')
        else:
            label = ("sport", "food", "money", "music")[k % 4]
            rows.append(f'"{label} {prose(rng, chars)}",{label}')
    path = folder / name
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


# -- the steps -------------------------------------------------------------------------------------


@dataclass
class Session:
    """One browser tab walking the steps: ``query`` holds the parameters every page link
    carries (``model``: the model the soak runs, the bundled one when empty)."""

    index: int
    tab: Tab
    counter: RunCounter
    folder: Path
    query: dict[str, str] = field(default_factory=dict)
    started: float = 0.0
    before: int = 0
    failed: bool = False

    @property
    def page(self):
        return self.tab.page


Start = Callable[[Session, str, random.Random], None]
"""Starts one request in a session's tab (base URL, a random generator for its input)."""


@dataclass(frozen=True)
class Step:
    """One request: its ``page``, ``mode`` and input ``size`` (as the table prints them), how
    to ``start`` it, and whether it needs a model with a masked-LM head (``masked_lm``)."""

    page: str
    mode: str
    size: str
    start: Start
    masked_lm: bool = False


def goto(path: str, **params: str) -> Start:
    """Open the page ``path`` with the bound ``params`` and the session's own query."""

    def start(session: Session, url: str, rng: random.Random) -> None:
        both = {**session.query, **params}
        query = f"?{urllib.parse.urlencode(both)}" if both else ""
        session.page.goto(f"{url}/{path}{query}")

    return start


def open_compare(session: Session, url: str, rng: random.Random) -> None:
    """Open Compare models against the session's model B (``compare.model_b`` of its query,
    ``bench.soak --model-b``), or model A's random weights."""
    model_b = session.query.get("compare.model_b", "random weights")
    goto("compare", **{"compare.model_b": model_b})(session, url, rng)


SET_VALUE = """(element, value) => {
    const proto = Object.getPrototypeOf(element);
    Object.getOwnPropertyDescriptor(proto, "value").set.call(element, value);
    element.dispatchEvent(new Event("input", {bubbles: true}));
}"""


def type_into(key: str, make: Callable[[random.Random], str]) -> Start:
    """Fill the text area or input ``key`` (no keystrokes, no clipboard) and apply it."""

    def start(session: Session, url: str, rng: random.Random) -> None:
        box = widget(session.page, key).locator("textarea, input").first
        box.wait_for(timeout=60_000)
        # fill() types a megabyte into React's text area for minutes: set it as a paste does.
        box.evaluate(SET_VALUE, make(rng))
        box.focus()
        is_area = box.evaluate("element => element.tagName === 'TEXTAREA'")
        box.press("Control+Enter" if is_area else "Enter")

    return start


def radio(key: str, label: str) -> Start:
    def start(session: Session, url: str, rng: random.Random) -> None:
        widget(session.page, key).get_by_text(label, exact=True).click()

    return start


def select(key: str, label: str) -> Start:
    def start(session: Session, url: str, rng: random.Random) -> None:
        widget(session.page, key).click()
        session.page.get_by_role("option", name=label, exact=True).click()

    return start


def upload(with_word: bool) -> Start:
    def start(session: Session, url: str, rng: random.Random) -> None:
        name = f"probe-{'word' if with_word else 'sentence'}-{rng.randrange(10**9)}.csv"
        path = csv_file(rng, session.folder, name, with_word)
        widget(session.page, "probe.upload").locator('input[type="file"]').set_input_files(
            str(path)
        )

    return start


CHARS = 100_000
WORDS_MODE = "Words: one point per occurrence of a word"
STEPS = (
    Step("Tokens", "pair on", "open", goto("tokens", **{"tokens.pair_on": "true"})),
    Step("Tokens", "text", "100,000 chars", type_into("tokens.text", lambda r: prose(r, CHARS))),
    Step("Tokens", "pair", "+100,000 chars", type_into("tokens.pair", lambda r: prose(r, CHARS))),
    Step("Layers", "-", "open", goto("layers")),
    Step("Layers", "text", "100,000 chars", type_into("layers.text", lambda r: prose(r, CHARS))),
    Step("Attention", "pair on", "open", goto("attention", **{"attention.pair_on": "true"})),
    Step(
        "Attention", "text", "100,000 chars", type_into("attention.text", lambda r: prose(r, CHARS))
    ),
    Step(
        "Attention",
        "pair",
        "+100,000 chars",
        type_into("attention.pair", lambda r: prose(r, CHARS)),
    ),
    Step(
        "Attention",
        "masked-LM lens",
        "100,000 chars, [MASK] every 5th word",
        type_into("attention.masked", masked_text),
        masked_lm=True,
    ),
    Step(
        "Word in context",
        "mean-centred",
        "open",
        goto("context", **{"context.post": "Centre (subtract the mean)"}),
    ),
    Step(
        "Word in context",
        "mean-centred",
        "100 lines x 512 tokens, 'bank' every 2nd word",
        type_into("context.text", context_text),
    ),
    Step(
        "How contextual?",
        "trained + random weights",
        "built-in sentences",
        goto("contextual", **{"contextual.random": "true"}),
    ),
    Step(
        "Projections",
        "sentences, PCA",
        "open",
        goto("projections", **{"projections.source": "Paste lines"}),
    ),
    Step(
        "Projections",
        "sentences, PCA",
        "5,000 lines x 40 words",
        type_into("projections.lines", lambda r: lines(r, 5000, 40)),
    ),
    Step(
        "Projections",
        "layers in motion, PCA",
        "same",
        radio("projections.view", "Layers in motion"),
    ),
    Step("Projections", "sentences, PCA map", "same", radio("projections.view", "Map")),
    Step("Projections", "sentences, t-SNE", "same", radio("projections.method", "t-SNE")),
    Step(
        "Projections",
        "t-SNE + every pooling",
        "same",
        select("projections.compare", "Every pooling"),
    ),
    Step("Projections", "UMAP + every pooling", "same", radio("projections.method", "UMAP")),
    Step(
        "Projections",
        "UMAP + random weights",
        "same",
        select("projections.compare", "Random weights"),
    ),
    Step(
        "Projections",
        "words, t-SNE",
        "open",
        goto(
            "projections",
            **{
                "projections.level": WORDS_MODE,
                "projections.source": "Paste lines",
                "projections.method": "t-SNE",
            },
        ),
    ),
    Step(
        "Projections",
        "words, t-SNE",
        "5,000 lines x 40 words, 'bank' every 4th",
        type_into("projections.lines", lambda r: lines(r, 5000, 40, "bank")),
    ),
    Step("Projections", "words, t-SNE 3-D", "same", radio("projections.dims", "3-D")),
    Step("Projections", "words, UMAP 3-D", "same", radio("projections.method", "UMAP")),
    Step(
        "Projections", "words, motion UMAP", "same", radio("projections.view", "Layers in motion")
    ),
    Step("Which layer?", "sentences", "open", goto("probe", **{"probe.source": "Upload a CSV"})),
    Step("Which layer?", "sentences", "CSV 5,000 rows, 4.9 MB (text,label)", upload(False)),
    Step("Which layer?", "words", "open", goto("probe", **{"probe.source": "Upload a CSV"})),
    Step("Which layer?", "words", "CSV 5,000 rows, 4.8 MB (text,word,label)", upload(True)),
    Step(
        "Similarity",
        "paste corpus",
        "open",
        goto("similarity", **{"similarity.corpus.source": "Paste lines"}),
    ),
    Step(
        "Similarity",
        "sentences",
        "60 lines x 512 tokens",
        type_into("similarity.text", lambda r: "\n".join(prose(r, 2600) for _ in range(60))),
    ),
    Step(
        "Similarity",
        "search corpus",
        "5,000 lines x 40 words",
        type_into("similarity.corpus.lines", lambda r: lines(r, 5000, 40)),
    ),
    Step(
        "Compare models",
        "against model B",
        "open: tokens, CKA, curves, maps, search",
        open_compare,
    ),
    Step("Compare models", "search", "a query", type_into("compare.query", lambda r: prose(r, 60))),
)
"""Every request, in order. ``open`` is a page link with the bound parameters (a new
Streamlit session); the inputs are typed into that page afterwards."""
PAGE_NAMES = {
    "tokens": "Tokens",
    "layers": "Layers",
    "attention": "Attention",
    "context": "Word in context",
    "contextual": "How contextual?",
    "projections": "Projections",
    "probe": "Which layer?",
    "similarity": "Similarity",
    "compare": "Compare models",
}


def steps_for(pages: list[str], masked_lm: bool = True) -> tuple[Step, ...]:
    """The steps of ``pages`` (names of :data:`PAGE_NAMES`, in that order; every page when
    empty), leaving out the lens's when the model has no masked-LM head (``masked_lm``).
    Raises ``ValueError`` for an unknown page."""
    unknown = [p for p in pages if p not in PAGE_NAMES]
    if unknown:
        raise ValueError(f"Unknown page(s) {unknown}; choose from {', '.join(PAGE_NAMES)}.")
    order = [PAGE_NAMES[p] for p in pages] or list(PAGE_NAMES.values())
    return tuple(
        s for page in order for s in STEPS if s.page == page and (masked_lm or not s.masked_lm)
    )
