"""A light Streamlit client for benches: one websocket per session, no browser.

It speaks the protocol the browser speaks to ``streamlit run`` (Streamlit 1.67, its Starlette
server, ``web/server/starlette/starlette_websocket.py``): a websocket on ``/_stcore/stream``
with the subprotocol ``streamlit`` (the second and third subprotocol entries, an XSRF token and
a session to reconnect to, are only read for login cookies and reconnects: a bench sends
neither, and sends no ``Origin`` header, which the server allows). A visit is one ``BackMsg``
``rerun_script`` holding a ``ClientState`` with the page's URL path as ``page_name`` (what the
frontend sends for a first request of ``/tokens``; ``st.navigation`` resolves it) and the query
string; the server answers with ``ForwardMsg`` s until ``script_finished``. A run that ends
``FINISHED_EARLY_FOR_RERUN`` (``st.rerun``, as the router does on a fresh server) is followed
by the next one; the visit ends with the first run that finished otherwise.

Why not Chromium: 30 pages of the app in one Chromium (about 150-250 MB and a renderer busy
drawing Plotly charts each) beside the server do not fit a 2-core machine without the browser
becoming what is measured. This client parses the server's messages only: it counts
exception elements and ``st.error`` boxes and draws nothing, so what a visit waits for is the
server. It uses ``websockets`` (a dependency of Streamlit itself).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import time
import urllib.parse
from dataclasses import dataclass, field

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import ClientConnection, connect

STREAM_PATH = "/_stcore/stream"
RUN_TIMEOUT_S = 600.0


@dataclass
class Visit:
    """What one session saw of one page: ``seconds`` from the request to the end of the run
    (``None`` when it timed out or the connection closed first, ``status`` says which),
    ``runs`` (script runs it took: 2 when the first reran), the texts of exception elements
    and ``st.error`` boxes, whether the server said the page was not found, and the bytes and
    messages received."""

    page: str
    seconds: float | None = None
    status: str = "pending"
    runs: int = 0
    exceptions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    page_not_found: bool = False
    messages: int = 0
    bytes: int = 0
    started: float = 0.0
    """``time.monotonic()`` when the request was sent (the same clock as the server's)."""

    @property
    def ok(self) -> bool:
        """Finished, with no exception, no error box and the page found."""
        return (
            self.status == "finished"
            and not self.exceptions
            and not self.errors
            and not self.page_not_found
        )


def stream_url(base_url: str) -> str:
    """``ws://host:port/_stcore/stream`` for the app at ``base_url`` (``http://host:port``)."""
    parts = urllib.parse.urlsplit(base_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}{STREAM_PATH}"


def rerun_message(page: str, query: str = "") -> bytes:
    """The ``BackMsg`` a browser sends to open ``/<page>?<query>`` (``page`` "" is the home
    page, ``query`` without its ``?``)."""
    message = BackMsg()
    message.rerun_script.CopyFrom(ClientState(query_string=query, page_name=page))
    return message.SerializeToString()


def read_forward(data: bytes, visit: Visit) -> int | None:
    """Record one ``ForwardMsg`` into ``visit``; returns the ``script_finished`` status when
    the message is one, else None."""
    message = ForwardMsg()
    message.ParseFromString(data)
    visit.messages += 1
    visit.bytes += len(data)
    kind = message.WhichOneof("type")
    if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
        element = message.delta.new_element
        which = element.WhichOneof("type")
        if which == "exception":
            visit.exceptions.append(f"{element.exception.type}: {element.exception.message}")
        elif which == "alert" and element.alert.format == Alert.ERROR:
            visit.errors.append(element.alert.body)
    elif kind == "page_not_found":
        visit.page_not_found = True
    elif kind == "script_finished":
        return message.script_finished
    return None


class Session:
    """One Streamlit session over its own websocket (``async with Session(url) as s``)."""

    def __init__(self, base_url: str) -> None:
        self.url = stream_url(base_url)
        self.connection: ClientConnection | None = None

    async def __aenter__(self) -> Session:
        self.connection = await connect(
            self.url,
            subprotocols=["streamlit"],
            max_size=None,  # a page's figures come in messages of several MB
            proxy=None,  # a loopback server: no http_proxy in between
            open_timeout=60,
            ping_interval=None,
        )
        return self

    async def __aexit__(self, *exc) -> None:
        if self.connection is not None:
            await self.connection.close()

    async def visit(self, page: str, query: str = "", timeout_s: float = RUN_TIMEOUT_S) -> Visit:
        """Open ``page`` (its URL path, "" for home) with ``query`` and wait for the end of
        its run (of the rerun, when the first run reran). Never raises for what the server
        does: a timeout or a closed connection is the visit's ``status``."""
        assert self.connection is not None, "use the session with 'async with'"
        visit = Visit(page, started=time.monotonic())
        await self.connection.send(rerun_message(page, query))
        deadline = visit.started + timeout_s
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    visit.status = "timed out"
                    return visit
                data = await asyncio.wait_for(self.connection.recv(), left)
                status = read_forward(data, visit)
                if status is None:
                    continue
                visit.runs += 1
                if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                visit.seconds = time.monotonic() - visit.started
                visit.status = (
                    "finished"
                    if status == ForwardMsg.FINISHED_SUCCESSFULLY
                    else ForwardMsg.ScriptFinishedStatus.Name(status).lower()
                )
                return visit
        except TimeoutError:
            visit.status = "timed out"
        except Exception as error:  # noqa: BLE001 - the connection closed: recorded
            visit.status = f"closed: {type(error).__name__}: {str(error)[:200]}"
        return visit


async def class_visit(
    base_url: str,
    page: str,
    query: str = "",
    sessions: int = 2,
    spread_s: float = 0.0,
    timeout_s: float = RUN_TIMEOUT_S,
) -> list[Visit]:
    """``sessions`` new sessions open ``page`` with ``query``: every websocket is connected
    first, then the requests are sent ``spread_s / sessions`` seconds apart (all within
    ``spread_s``), and every run is awaited. One :class:`Visit` per session, in order."""
    async with contextlib.AsyncExitStack() as stack:
        opened = await asyncio.gather(
            *(stack.enter_async_context(Session(base_url)) for _ in range(sessions))
        )
        step = spread_s / sessions if sessions else 0.0

        async def one(index: int, session: Session) -> Visit:
            await asyncio.sleep(index * step)
            return await session.visit(page, query, timeout_s)

        return list(await asyncio.gather(*(one(i, s) for i, s in enumerate(opened))))


def visit_together(
    base_url: str,
    page: str,
    query: str = "",
    sessions: int = 2,
    spread_s: float = 0.0,
    timeout_s: float = RUN_TIMEOUT_S,
) -> list[Visit]:
    """:func:`class_visit`, from synchronous code (on a thread of its own when this thread
    already runs an event loop, as Playwright's synchronous API does in a test session)."""

    def visit() -> list[Visit]:
        return asyncio.run(class_visit(base_url, page, query, sessions, spread_s, timeout_s))

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return visit()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(visit).result()
