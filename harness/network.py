"""Bytes a page receives, counted by Chromium itself (the DevTools protocol's Network domain):
every websocket frame's payload and every HTTP response's encoded length (compressed, headers
included), so a test or a bench can tell what an action made the server send again."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Received:
    """Counts what the page of a Playwright ``page`` receives from now on: ``websocket`` bytes
    (frame payloads; a binary frame's base64 text is decoded in size) and ``http`` bytes
    (``encodedDataLength`` of each finished response, iframes' documents and scripts included).
    :meth:`reset` starts a new count."""

    page: object
    websocket: int = 0
    http: int = 0
    frames: int = 0
    _session: object = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._session = self.page.context.new_cdp_session(self.page)
        self._session.on("Network.webSocketFrameReceived", self._frame)
        self._session.on("Network.loadingFinished", self._loaded)
        self._session.send("Network.enable")

    def _frame(self, event: dict) -> None:
        response = event.get("response") or {}
        payload = response.get("payloadData") or ""
        binary = response.get("opcode") == 2
        self.websocket += len(payload) * 3 // 4 if binary else len(payload.encode())
        self.frames += 1

    def _loaded(self, event: dict) -> None:
        self.http += int(event.get("encodedDataLength") or 0)

    @property
    def total(self) -> int:
        return self.websocket + self.http

    def reset(self) -> None:
        self.websocket = self.http = self.frames = 0
