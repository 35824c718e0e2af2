"""The Hugging Face hub, asked as little and as briefly as possible: the local cache, the
offline switch and one bounded reachability probe."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

HUB_PROBE_TIMEOUT = 3.0
"""Seconds :func:`hub_reachable` waits for a connection."""


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


def hub_reachable() -> bool:
    """One TCP connect to the hub's host, bounded by a short timeout (no retries)."""
    from huggingface_hub import constants

    url = urlparse(constants.ENDPOINT)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=HUB_PROBE_TIMEOUT):
            return True
    except OSError:
        return False
