"""Which of many points a map draws: all, or a reproducible random sample with a note.

Library defaults only; the app passes its own cap (:data:`explorer.server.limits.MAX_POINTS`).
"""

from __future__ import annotations

import numpy as np

MAX_POINTS = 20_000
"""The library's default for the most points one map draws (WebGL keeps 20,000 smooth)."""


def sample_points(n: int, limit: int = MAX_POINTS, seed: int = 0) -> tuple[np.ndarray, str | None]:
    """Which of ``n`` points a map draws: all of them (in order), or ``limit`` of them drawn at
    random (sorted, reproducible with ``seed``) with a note saying so."""
    if n <= limit:
        return np.arange(n), None
    rows = np.sort(np.random.default_rng(seed).choice(n, size=limit, replace=False))
    return rows, f"Showing {limit:,} of {n:,} points, a random sample (seed {seed})."
