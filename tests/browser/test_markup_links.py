"""No user text is ever rendered as Markdown or HTML that reaches out (issue 14, part 1, item 4).

A recording HTTP server on a free loopback port stands for a stranger's host. Every text field
of every page (text areas and text inputs of the main area, found from the DOM, optional ones
revealed through the page link) is filled with Markdown and HTML that would load an image from
that server or plant a live link to it, if a page rendered it. The page link that results (the
widgets bound to the URL put their values in it) is then opened in a new session, the way a
shared link would be. After the fields are filled and again after the reopen: the server must
have received no request, and no element of the document (sidebar, main area, Plotly's SVG,
iframes) may have an ``href``, ``src`` or ``srcset`` pointing at it.
"""

from __future__ import annotations

import contextlib
import http.server
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from explorer.ui.sources import SOURCE_LABELS
from harness.browser import Tab, open_tab
from harness.visits import (
    EXCEPTION,
    MAIN,
    failure_report,
    save_full_page,
    wait_for_run,
    wait_until_idle,
)
from harness.widgets import type_text, upload_file, widget

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETTLE_MS = 500
"""After a run: time for an image that a page would render to be requested."""


WORDS_LEVEL = "Words: one point per occurrence of a word"
"""How the Projections page's level radio spells words mode in its link (its option label)."""


@dataclass(frozen=True)
class Case:
    """A page (``url_path``) opened with the link parameters ``query`` (a bound radio is
    spelled by its option's label) to reveal its optional text fields; ``fields`` are the
    fields (as their ``st-key-`` classes spell them) the test must find and fill."""

    name: str
    url_path: str
    query: dict[str, str] = field(default_factory=dict)
    fields: tuple[str, ...] = ()

    @property
    def link(self) -> str:
        query = urllib.parse.urlencode(self.query, quote_via=urllib.parse.quote)
        return f"/{self.url_path}" + (f"?{query}" if query else "")


PASTE = SOURCE_LABELS["paste"]
CASES = (
    Case(
        "tokens",
        "tokens",
        {"tokens.pair_on": "true"},
        ("tokens-text", "tokens-pair", "tokens-word"),
    ),
    Case("layers", "layers", fields=("layers-text",)),
    Case(
        "attention",
        "attention",
        {"attention.pair_on": "true"},
        ("attention-text", "attention-pair"),
    ),
    Case("context", "context", fields=("context-text", "context-word")),
    Case(
        "projections-sentences",
        "projections",
        {"projections.source": PASTE},
        ("projections-lines",),
    ),
    Case(
        "projections-words",
        "projections",
        {"projections.level": WORDS_LEVEL, "projections.source": PASTE},
        ("projections-word", "projections-lines"),
    ),
    # Which layer? has no text field: its texts come from a built-in set or a CSV. The test
    # uploads one whose labels are the payload (a class with one example: an error quotes it).
    Case("probe", "probe", {"probe.source": SOURCE_LABELS["upload"]}),
    Case(
        "similarity",
        "similarity",
        {"similarity.corpus.source": PASTE},
        ("similarity-text", "similarity-corpus-lines", "similarity-query"),
    ),
)


class Recorder(http.server.ThreadingHTTPServer):
    """A loopback HTTP server that answers 404 to everything and records each request."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _RecordingHandler)

    @property
    def origin(self) -> str:
        """``127.0.0.1:<port>``: the host part of every URL in the payload."""
        return f"127.0.0.1:{self.server_address[1]}"

    def taken(self) -> list[str]:
        """The requests recorded so far (``"GET /path"``), and forget them."""
        with self.lock:
            taken, self.requests = self.requests, []
        return taken


class _RecordingHandler(http.server.BaseHTTPRequestHandler):
    server: Recorder

    def _record(self) -> None:
        with self.server.lock:
            self.server.requests.append(f"{self.command} {self.path}")
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = do_POST = do_OPTIONS = _record

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
        pass


@pytest.fixture(scope="module")
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def payload_pieces(origin: str) -> list[str]:
    """Markdown image, Markdown link, HTML image, HTML link and autolink to ``origin``."""
    base = f"http://{origin}"
    return [
        f"![p]({base}/md-img.png)",
        f"[click]({base}/md-link)",
        f'<img src="{base}/html-img.png">',
        f'<a href="{base}/html-link">a</a>',
        f"<{base}/autolink>",
    ]


def line_payload(origin: str) -> str:
    """For a one-line field (a word, a query): an ordinary word, then every piece. A page
    that looks the word up says it does not occur, which quotes it back."""
    return " ".join(["bank", *payload_pieces(origin)])


def area_payload(origin: str) -> str:
    """For a text area: three ordinary sentences with ``bank`` and the pieces among them, one
    as a sense label (``label | text``, Word in context) and one as a ``label<TAB>text`` label
    (pasted lines). Short: every token costs time on the Attention page."""
    md_img, md_link, html_img, html_link, autolink = payload_pieces(origin)
    return "\n".join(
        [
            f"The bank raised its rates. {md_img} {md_link}",
            f"{html_link} | We sat on the river bank. {html_img}",
            f"{autolink}\tOur team lost the final at the bank.",
        ]
    )


def probe_csv(origin: str) -> str:
    """A ``text,label`` CSV for Which layer?: the texts hold the pieces, and one class, named
    by all of them, has a single example (an error quotes it)."""
    pieces = payload_pieces(origin)
    quoted = [piece.replace('"', '""') for piece in pieces]
    rows = [f'"The bank raised its rates. {piece}",plain' for piece in quoted[:3]]
    rows.append(f'"We sat on the river bank. {quoted[3]}","{" ".join(quoted)}"')
    return "text,label\n" + "\n".join(rows) + "\n"


TEXT_FIELDS = """main => [...main.querySelectorAll(
        '[data-testid="stTextArea"], [data-testid="stTextInput"]')]
    .filter(field => field.querySelector("textarea:not([disabled]), input:not([disabled])"))
    .map(field => {
        const holder = field.closest('[class*="st-key-"]');
        const name = holder && [...holder.classList].find(c => c.startsWith("st-key-"));
        return name ? name.slice("st-key-".length) : null;
    })"""
"""The keys of the enabled text areas and text inputs in the main area, in page order, as
their ``st-key-`` class spells them (``null`` for a field without a key). :func:`widget` finds
a field from that spelling as well as from its key."""

LINKS_TO = """origin => {
    // Where an element sits: its nearest widget key and the Streamlit elements around it.
    const where = element => {
        const inside = [];
        let key = null;
        for (let node = element; node && node.getAttribute; node = node.parentElement) {
            const testid = node.getAttribute("data-testid");
            if (testid && inside.length < 4) inside.push(testid);
            const name = [...node.classList].find(c => c.startsWith("st-key-"));
            if (name && !key) key = name;
        }
        return `${key || "(no key)"} in ${inside.join(" < ") || "(no test id)"}`;
    };
    const found = [];
    const attributes = ["href", "xlink:href", "src", "srcset", "action", "formaction", "poster",
                        "data", "background"];
    for (const element of document.querySelectorAll("*")) {
        for (const attribute of element.attributes) {
            const name = attribute.name.toLowerCase();
            if (!attributes.includes(name)) continue;
            const values = name === "srcset"
                ? attribute.value.split(",").map(part => part.trim().split(/\\s+/)[0])
                : [attribute.value];
            for (const value of values) {
                let host = null;
                try { host = new URL(value.trim(), document.baseURI).host; } catch (e) {}
                if (host === origin || value.includes(origin)) {
                    found.push(where(element) + ": " + element.outerHTML.slice(0, 300));
                }
            }
        }
    }
    return found;
}"""
"""Every element (in one frame) with an address attribute pointing at ``origin`` (links,
images, sources, SVG ``<a xlink:href>``, forms): where it is (the nearest ``st-key-`` class and
the ``data-testid`` of the elements around it) and the start of its HTML."""


def links_to(tab: Tab, origin: str) -> list[str]:
    """:data:`LINKS_TO` in the page and in every frame it holds."""
    found = []
    for frame in tab.page.frames:
        with contextlib.suppress(Exception):  # a frame that went away meanwhile
            found += frame.evaluate(LINKS_TO, origin)
    return found


def exception_boxes(tab: Tab) -> list[str]:
    return [box.inner_text()[:400] for box in tab.page.locator(EXCEPTION).all()]


def _problems(recorder: Recorder, tab: Tab) -> list[str]:
    """Requests the recording server received (forgotten once read) and elements pointing at
    it, after a moment for a rendered image to be requested."""
    tab.page.wait_for_timeout(SETTLE_MS)
    problems = [f"the recording server received {r}" for r in recorder.taken()]
    return problems + [f"live link or image: {e}" for e in links_to(tab, recorder.origin)]


def payload_for(tab: Tab, key: str, origin: str) -> str:
    """The payload for the field ``key``: :func:`area_payload` or :func:`line_payload`."""
    box = widget(tab.page, key).locator("textarea, input").first
    is_area = box.evaluate("element => element.tagName === 'TEXTAREA'")
    return area_payload(origin) if is_area else line_payload(origin)


def fill_every_field(tab: Tab, case: Case, recorder: Recorder, problems: list[str]) -> list[str]:
    """Fill every text field of the main area with the payload, in page order, then those
    that appear after that, and add to ``problems`` what each round leaves; return the
    fields' keys (as their classes spell them).

    A round types into all its fields at once and waits for the runs once: each edit starts a
    run that the next one cuts short, so a page computes once per round, not once per field.
    """
    page = tab.page
    filled: dict[str, str] = {}
    for _ in range(4):  # a field revealed by a field revealed by ...: enough
        keys = page.locator(MAIN).evaluate(TEXT_FIELDS)
        assert None not in keys, f"{case.name}: a text field without a key: {keys}"
        todo = [key for key in keys if key not in filled]
        if not todo:
            break
        for key in todo:
            filled[key] = payload_for(tab, key, recorder.origin)
            type_text(page, key, filled[key])
        wait_for_run(page)
        problems += [f"after filling {todo}: {p}" for p in _problems(recorder, tab)]
        problems += [f"exception box after filling {todo}: {b!r}" for b in exception_boxes(tab)]
    if not filled:
        problems += [f"with no text field: {p}" for p in _problems(recorder, tab)]
    for key, text in filled.items():
        box = widget(page, key).locator("textarea, input").first
        if box.count():
            assert box.input_value() == text, f"{case.name}: {key!r} does not hold the payload"
    return list(filled)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_user_text_never_renders_markup_that_reaches_out(
    case: Case,
    tab: Tab,
    browser,
    recorder: Recorder,
    app_url: str,
    artifacts: Path,
    server_log: Path,
    tmp_path: Path,
) -> None:
    recorder.taken()  # whatever an earlier page left is that page's business
    page = tab.page
    page.goto(app_url + case.link)  # the app_url fixture made the server's first visit
    wait_until_idle(page)
    problems: list[str] = []
    if case.name == "probe":
        upload = tmp_path / "labels.csv"
        upload.write_text(probe_csv(recorder.origin))
        upload_file(page, "probe.upload", upload)
    filled = fill_every_field(tab, case, recorder, problems)
    missing = [key for key in case.fields if key not in filled]
    if problems or missing:  # a screenshot costs a second (a pause to lay out, a tall page)
        save_full_page(page, artifacts / "screenshots" / f"markup-{case.name}.png")
    assert not missing, (
        f"{case.name}: {case.link} did not show the text fields {missing} (found {filled}): "
        "did a page change its keys, or a radio its option labels?"
    )

    link = page.url  # with the values of the fields bound to the URL
    with open_tab(browser) as second:
        second.page.goto(link)
        wait_until_idle(second.page)
        reopened = _problems(recorder, second)
        reopened += [f"exception box: {box!r}" for box in exception_boxes(second)]
        if reopened:
            save_full_page(
                second.page, artifacts / "screenshots" / f"markup-{case.name}-reopened.png"
            )
        problems += [f"reopened in a new session: {p}" for p in reopened]
    assert not problems, failure_report(
        f"{case.name}: user text reached out (fields filled: {filled}; link: {link})",
        problems,
        tab,
        server_log,
    )
