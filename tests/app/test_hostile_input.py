"""Hostile input on every page, through AppTest: odd Unicode, empty and huge texts, HTML and
Markdown payloads, broken CSV files, models that fail to load.

Every input must end in the page's normal result or a clear error/warning/info element, never
an exception; user text must never reach ``st.html`` or ``unsafe_allow_html`` Markdown as live
markup; and once the input is back to its default the page renders again without an error.
One AppTest per page and widget takes the inputs in turn (a fresh AppTest per input would
cost a script run of app.py each time).

Lone UTF-16 surrogates cannot reach a page at all: widget values travel as protobuf strings,
which must be valid UTF-8 (AppTest refuses to send one; the real server drops such a message
from the browser with "Error deserializing back message" and the session carries on). The
library's side is checked here directly.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

import pytest

import explorer
from explorer import context as ctx
from explorer.data import uploads, vectorfiles
from tests.app.rendered import plain

pytestmark = pytest.mark.slow

FILLER = "The robber went fishing while the river flowed past the old mill. "
LONG = ("The bank by the river. The bank vault. " + FILLER * 320)[:21_000]
"""21,000 characters; two early "bank"s, so Word in context finds two within 512 tokens."""

HOSTILE = {
    "control": "The bank\x00\x01\x07\x08\x0b\x0c\x1b[31m\x7f\x85 by the bank.",
    "zero_width_bidi": (
        "\u200bThe\u200c bank\u200d \u202eknab\u202c \u2066by\u2069 the \u2067bank\u2069\ufeff."
    ),
    "emoji": "🏦 The bank 👩‍👩‍👧‍👦 by the 🇫🇷 river bank 🤷🏽‍♀️.",
    "cjk": "河岸の銀行。The bank 银行 by the river 은행 bank.",
    "rtl": "البنك على ضفة النهر The bank הבנק ליד bank النهر.",
    "combining": "The ba\u0301nk Z\u0351\u0352\u0353a\u0300\u0301\u0302 by the bank e\u0301.",
    "empty": "",
    "whitespace": " \t\n \u00a0\u3000\u2003 \n",
    "long": LONG,
    "script": "<script>alert(1)</script> The bank by the bank.",
    "img": "<img src=x onerror=alert(1)> The bank by the bank.",
    "markdown_link": "[click](javascript:alert(1)) The bank by the [bank](https://example.com).",
    "markdown": "**The** _bank_ `by` # the $x^2$ :red[bank] <b>x</b> ~~y~~ | a | b |",
}
"""Every non-blank input holds "bank" twice, so Word in context gets past "no occurrence"."""

EXTRA_LINES = "The bank raised its rates.\nWe sat on the river bank.\nOur team lost the final."
"""Added under a non-blank input in one-text-per-line fields that need several lines."""

# The tags the pages' own HTML uses (token chips, highlighted occurrences, tables of whole
# texts).
ALLOWED_TAGS = {"div", "span", "mark", "b", "i", "em", "strong", "small", "br", "sup", "sub"}
ALLOWED_TAGS |= {"table", "thead", "tbody", "tr", "th", "td"}
# Where the AppTest of a page keeps its result (any one is enough).
RESULTS = ("plotly_chart", "dataframe", "html", "metric", "page_link")


def _problems(at) -> list[str]:
    return [e.message for e in at.exception]


def _alerts(at) -> list[str]:
    """Texts of the error, warning and info elements (main area and sidebar)."""
    return [a.value for kind in ("error", "warning", "info") for a in at.get(kind) if a.value]


def _has_result(at) -> bool:
    return any(at.get(kind) for kind in RESULTS)


class _Tags(HTMLParser):
    """Collects the start tags that are not the pages' own harmless ones."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        handler = any(name.startswith("on") for name, _ in attrs)
        script_link = any(
            name in ("href", "src", "xlink:href")
            and (value or "").strip().lower().startswith("javascript:")
            for name, value in attrs
        )
        if tag not in ALLOWED_TAGS or handler or script_link:
            self.bad.append(self.get_starttag_text() or tag)


def _failures_after(at, name: str, what: str) -> list[str]:
    """What is wrong with the page after the hostile input ``name``: an exception, no result
    and no alert either, or ``what`` (the user's text) rendered as live HTML."""
    failures = []
    if at.exception:
        failures.append(f"{name}: exception {_problems(at)}")
    elif not (_has_result(at) or _alerts(at)):
        failures.append(f"{name}: neither a result nor an error/warning/info element")
    if markup := live_markup(at):
        failures.append(f"{name}: {what} became live HTML: {markup}")
    return failures


def live_markup(at) -> list[str]:
    """Tags in ``st.html`` bodies and ``unsafe_allow_html`` Markdown that user text could have
    made: ``<script>``, ``<img>``, event handlers, ``javascript:`` links (empty when none)."""
    from explorer.ui import presentation

    constant = {presentation.WHOLE_LABELS, presentation.STYLE}  # the app's own style sheets
    bodies = [element.value for element in at.get("html") if element.value not in constant]
    bodies += [
        element.value
        for kind in ("markdown", "caption")
        for element in at.get(kind)
        if element.proto.allow_html
    ]
    found = []
    for body in bodies:
        parser = _Tags()
        parser.feed(body)
        parser.close()
        found += parser.bad
        if "](javascript:" in body:
            found.append("a Markdown javascript: link")
    return found


def _value(name: str, lines: bool) -> str:
    text = HOSTILE[name]
    return f"{text}\n{EXTRA_LINES}" if lines and text.strip() else text


def _text_widget(at, key: str):
    for widget in (*at.text_area, *at.text_input):
        if widget.key == key:
            return widget
    raise AssertionError(f"no text widget with key {key!r} on the page")


def _other_label(at) -> str:
    options = at.selectbox(key="model").options
    return next(option for option in options if option.startswith("Other"))


@dataclass(frozen=True)
class Field:
    """A text widget of a page, the widgets to set first, and whether it takes lines."""

    page: str
    key: str
    setup: tuple[tuple[str, str, object], ...] = ()
    lines: bool = False

    @property
    def id(self) -> str:
        return self.key


FIELDS = (
    Field("tokens", "tokens.text"),
    Field("tokens", "tokens.pair", setup=(("checkbox", "tokens.pair_on", True),)),
    Field("tokens", "tokens.word"),
    Field("layers", "layers.text"),
    Field("context", "context.text", lines=True),
    Field("context", "context.word"),
    Field("projections", "projections.lines", (("radio", "projections.source", "paste"),), True),
    Field(
        "projections",
        "projections.word",
        (("radio", "projections.level", "words"), ("radio", "projections.source", "paste")),
    ),
    Field("similarity", "similarity.text", lines=True),
    Field("similarity", "similarity.query"),
    Field(
        "similarity",
        "similarity.corpus.lines",
        (("radio", "similarity.corpus.source", "paste"),),
        True,
    ),
    Field("home", "model.other", (("other", "model", ""),)),
)


def _setup(at, field: Field) -> None:
    for kind, key, value in field.setup:
        if kind == "checkbox":
            at.checkbox(key=key).set_value(value).run()
        elif kind == "radio":
            at.radio(key=key).set_value(value).run()
        else:  # "other": the sidebar's "Other: a Hugging Face id or a local folder…"
            at.selectbox(key=key).set_value(_other_label(at)).run()
        assert not at.exception, (field.key, key, _problems(at))


@pytest.mark.parametrize("field", FIELDS, ids=[field.id for field in FIELDS])
def test_hostile_text_gives_a_result_or_a_clear_message(page, field: Field, monkeypatch) -> None:
    monkeypatch.setenv("EXPLORER_MODELS", "*")  # free entry: the model field is typed
    at = page(field.page)
    _setup(at, field)
    default = _text_widget(at, field.key).value
    assert _has_result(at) and not at.error, (field.key, "the default does not render")
    failures: list[str] = []
    for name in HOSTILE:
        _text_widget(at, field.key).input(_value(name, field.lines)).run()
        failures += _failures_after(at, name, "user text")
        _text_widget(at, field.key).input(default).run()
        if at.exception or at.error or not _has_result(at):
            failures.append(
                f"{name}: back at the default the page does not render: "
                f"{_problems(at) or [e.value for e in at.error] or 'no result'}"
            )
    assert not failures, f"{field.key}:\n" + "\n".join(failures)
    # The rest of the app keeps working: another page opens in the same session.
    at.switch_page("pages/tokens.py" if field.page == "home" else "pages/home.py").run()
    assert not at.exception and _has_result(at), _problems(at)


# -- CSV uploads -------------------------------------------------------------------------------


def _csv(*rows: tuple[str, ...]) -> bytes:
    """UTF-8 CSV bytes of ``rows`` (the first is the header), quoted where needed."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


GOOD_CSV = (
    "text,label\n"
    + "".join(f"The bank raised rate number {i}.,finance\n" for i in range(6))
    + "".join(f"We sat on river bank number {i}.,nature\n" for i in range(6))
).encode()
"""A small valid upload: 12 texts, two labels with six each (enough for a 5-fold probe)."""

FORMULAS = _csv(
    ("text", "label"),
    ("=cmd|' /C calc'!A0 the bank", '=HYPERLINK("http://example.com")'),
    ("=SUM(A1:A9) the bank", "+1+1"),
    ("+1+2 the river bank", "+1+1"),
    ("-2+3 the bank vault", '=HYPERLINK("http://example.com")'),
    ("@SUM(1) the muddy bank", "+1+1"),
    ("\tthe bank, tab first", '=HYPERLINK("http://example.com")'),
    ("=1+1 a savings bank", "+1+1"),
    ("=2+2 a grassy bank", '=HYPERLINK("http://example.com")'),
)

HOSTILE_CELLS = _csv(
    ("text", "label"),
    *((text, name) for name, text in HOSTILE.items() if text.strip() and name != "long"),
    ("The bank <script>alert(2)</script>", "<img src=x onerror=alert(2)>"),
    ("The river bank [x](javascript:alert(3))", "<script>alert(3)</script>"),
)

CSV_CASES = {
    "unclosed_quote": b'text,label\n"an unclosed quote,sport\nThe bank by the river,nature\n',
    "ragged_rows": b"text,label\nThe bank,a,b,c,d\nThe river,x\n",
    "empty": b"",
    "blank_lines": b"\n \n\t\n",
    "header_only": b"text,label\n",
    "latin1": "text,label\nLa banque près de la rivière,géographie\n".encode("latin-1"),
    "utf16": "text,label\nThe bank,x\nThe river,y\n".encode("utf-16"),
    "binary": bytes(range(256)) * 8,
    "nul_bytes": b"text,label\nThe ba\x00nk,x\nThe river\x00,y\n",
    "too_many_rows": b"text,label\n" + b"The bank by the river,a\n" * (uploads.MAX_ROWS + 1),
    "too_big": b"text,label\n" + b"x" * (uploads.MAX_BYTES + 1) + b",a\n",
    "missing_columns": b"foo,bar\n1,2\n3,4\n",
    "repeated_header": b"text ,text,label,a ,a\nThe bank,x,y,1,2\nThe river,x,z,3,4\n",
    "formulas": FORMULAS,
    "hostile_cells": HOSTILE_CELLS,
}


@dataclass(frozen=True)
class Upload:
    page: str
    key: str
    setup: tuple[tuple[str, str, object], ...]


UPLOADS = (
    Upload("projections", "projections.csv", (("radio", "projections.source", "upload"),)),
    Upload("probe", "probe.upload", (("radio", "probe.source", "upload"),)),
    Upload(
        "similarity", "similarity.corpus.csv", (("radio", "similarity.corpus.source", "upload"),)
    ),
)


def _uploader(at, key: str):
    return next(widget for widget in at.get("file_uploader") if widget.key == key)


def _upload(at, key: str, name: str, data: bytes) -> None:
    _uploader(at, key).set_value((f"{name}.csv", data, "text/csv")).run()


@pytest.mark.parametrize("upload", UPLOADS, ids=[upload.key for upload in UPLOADS])
def test_bad_csv_files_give_a_clear_message(page, upload: Upload) -> None:
    at = page(upload.page)
    for _, key, value in upload.setup:
        at.radio(key=key).set_value(value).run()
        assert not at.exception, _problems(at)
    _upload(at, upload.key, "good", GOOD_CSV)
    assert not at.exception and not at.error and _has_result(at), _problems(at) or _alerts(at)
    failures: list[str] = []
    for name, data in CSV_CASES.items():
        _upload(at, upload.key, name, data)
        failures += _failures_after(at, name, "a cell")
        _upload(at, upload.key, "good", GOOD_CSV)
        if at.exception or at.error or not _has_result(at):
            failures.append(f"{name}: the good file does not render after it: {_alerts(at)}")
    assert not failures, f"{upload.key}:\n" + "\n".join(failures)
    at.switch_page("pages/home.py").run()
    assert not at.exception, _problems(at)


# -- user text in Plotly's pseudo-HTML and in Markdown ---------------------------------------

LINK = '<a href="https://example.com/x">click me</a>'
"""Plotly draws <a href>, <b>, <br>, <span style> in trace names, titles and hover labels."""


def _figure_strings(at) -> Iterator[str]:
    """Every string Plotly may draw in the page's figures (trace names, hover data, titles,
    ...); ``legendgroup`` and ``uid`` are identifiers, never drawn."""

    def walk(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in ("legendgroup", "uid"):
                    yield from walk(item)
        elif isinstance(value, list):
            for item in value:
                yield from walk(item)

    for chart in at.get("plotly_chart"):
        yield from walk(json.loads(chart.proto.spec))


def test_csv_labels_are_escaped_in_the_projection_legend(page) -> None:
    at = page("projections")
    at.radio(key="projections.source").set_value("upload").run()
    rows = [("text", LINK), ("The bank.", LINK)] + [
        (f"River bank {i}.", "nature") for i in range(5)
    ]
    _upload(at, "projections.csv", "links", _csv(*rows))
    at.selectbox(key="projections.label_column").set_value(LINK).run()
    assert not at.exception, _problems(at)
    assert at.get("plotly_chart"), _alerts(at)
    raw = [text for text in _figure_strings(at) if "<a href" in text]
    assert not raw, f"user text drawn as Plotly markup: {raw}"


def test_sentences_are_escaped_in_the_similarity_hover(page) -> None:
    at = page("similarity")
    at.text_area(key="similarity.text").input(f"The bank {LINK}.\n{EXTRA_LINES}").run()
    assert not at.exception and at.get("plotly_chart"), _problems(at) or _alerts(at)
    raw = [text for text in _figure_strings(at) if "<a href" in text]
    assert not raw, f"user text drawn as Plotly markup: {raw}"


def test_sentences_are_not_markdown_in_the_similarity_caption(page) -> None:
    at = page("similarity")
    phish = "Log in [here](https://example.com/phish) to see the result."
    at.text_area(key="similarity.text").input(f"{phish}\n{EXTRA_LINES}").run()
    assert not at.exception, _problems(at)
    captions = [c.value for c in at.caption if "Sentences on the axes" in c.value]
    assert captions, "no caption listing the sentences"
    assert "](https://example.com" not in captions[0], captions[0]


def test_an_unknown_word_is_quoted_as_text_in_the_error(page) -> None:
    at = page("context")
    at.text_input(key="context.word").input("Log in [here](https://example.com/phish)").run()
    assert not at.exception, _problems(at)
    assert at.error, "no error for a word that does not occur"
    assert "](https://example.com" not in at.error[0].value, at.error[0].value


# -- known limits ------------------------------------------------------------------------------


def test_many_occurrences_are_capped_with_a_warning(page) -> None:
    cap = ctx.MAX_OCCURRENCES  # AttributeError until the cap exists
    at = page("context")
    at.text_area(key="context.text").input("the bank " * (cap + 10)).run()
    assert not at.exception, _problems(at)
    heatmap = next(c for c in at.get("plotly_chart") if c.key == "context.heatmap")
    assert len(json.loads(heatmap.proto.spec)["data"][0]["x"]) <= cap
    assert any(str(cap) in w.value for w in at.warning), _alerts(at)


def test_an_overlong_model_name_is_an_error_not_a_traceback(page, monkeypatch) -> None:
    """Path.is_dir raised OSError (ENAMETOOLONG) for a name over 255 characters."""
    monkeypatch.setenv("EXPLORER_MODELS", "*")
    at = page("home")
    at.selectbox(key="model").set_value(_other_label(at)).run()
    at.text_input(key="model.other").input("a" * 300).run()
    assert not at.exception, _problems(at)
    assert at.sidebar.error, "no error in the sidebar"


def test_lone_surrogates_become_replacement_characters(bundled) -> None:
    text = "The bank \ud800 by the \udfff bank."
    tokenization = bundled.tokenize(text)
    assert "\ufffd" not in text and len(tokenization) > 4
    assert bundled.hidden_states(text).shape[1] == len(tokenization)
    occurrences, _ = explorer.word_layer_vectors(bundled, [text, "A bank."], "bank")
    assert [text[o.char_start : o.char_end] for o in occurrences[:2]] == ["bank", "bank"]


# -- a model that fails to load --------------------------------------------------------------


def _tokens(at) -> list[str]:
    return at.dataframe[0].value["token"].tolist()


def test_a_model_that_fails_to_load_leaves_other_sessions_alone(
    page, tmp_path, monkeypatch
) -> None:
    """Two sessions share the process's model cache. Session A asks for models that cannot
    load (not cached while offline, a broken folder, a folder without weights); session B
    keeps reading with the bundled model and gets the same tokens as before."""
    monkeypatch.setenv("EXPLORER_MODELS", "*")
    text = "Session B reads about the river bank and the bank vault."
    b = page("tokens")
    b.text_area(key="tokens.text").input(text).run()
    expected = _tokens(b)
    metrics = {m.label: m.value for m in b.metric}
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    no_weights = tmp_path / "no-weights"
    no_weights.mkdir()
    (no_weights / "config.json").write_text(json.dumps({"model_type": "bert"}))

    a = page("home")
    for wanted in ("bert-base-uncased", str(broken), str(no_weights)):
        if wanted.startswith("/"):
            a.selectbox(key="model").set_value(_other_label(a)).run()
            a.text_input(key="model.other").input(wanted).run()
        else:
            a.selectbox(key="model").set_value(wanted).run()
        assert not a.exception, (wanted, _problems(a))
        errors = [e.value for e in a.sidebar.error]
        captions = [plain(c.value) for c in a.sidebar.caption]
        assert errors and "Still using all-MiniLM-L6-v2 (bundled)." in captions, (
            wanted,
            errors,
            captions,
        )
        b.text_area(key="tokens.text").input(text + " Again.").run()
        b.text_area(key="tokens.text").input(text).run()
        assert not b.exception, (wanted, _problems(b))
        assert _tokens(b) == expected and {m.label: m.value for m in b.metric} == metrics
        assert not b.sidebar.error, "session B shows session A's failure"

    a.switch_page("pages/tokens.py").run()
    a.text_area(key="tokens.text").input(text).run()
    assert not a.exception, _problems(a)
    assert _tokens(a) == expected, "session A lost the bundled model"


def test_each_uploader_tells_the_browser_its_own_limit(page) -> None:
    """Texts: 5 MB (Streamlit keeps every session's uploads in memory, and no page uses more
    than about 0.5 MB of a CSV); vectors and their texts: the server's 20 MB. The browser
    refuses a larger file before sending it; the library refuses one that arrives anyway."""
    for upload in UPLOADS:
        at = page(upload.page)
        for _, key, value in upload.setup:
            at.radio(key=key).set_value(value).run()
        assert _uploader(at, upload.key).proto.max_upload_size_mb == uploads.MAX_UPLOAD_MB == 5
    at = page("projections")
    at.radio(key="projections.source").set_value("vectors").run()
    assert _uploader(at, "projections.vectors").proto.max_upload_size_mb == 20
    assert vectorfiles.MAX_UPLOAD_MB == 20
