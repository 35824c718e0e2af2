"""Numbers as a page shows them, and which of them tie at that precision.

Every what-to-notice sentence quotes numbers rounded as the figure shows them; a "most",
"least", "highest" or "widest" is only said of a value that stands out at that precision.
When several values show the same extreme, a sentence names them all or says they tie:
:func:`extremes` finds them, :func:`join` names them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def shown(value: float, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals as a figure shows it (never ``-0.00``)."""
    text = f"{float(value):.{digits}f}"
    return text.lstrip("-") if float(text) == 0 else text


def percent(value: float) -> str:
    """A share 0-1 as a whole percentage (``"45%"``), as the figures show shares."""
    return f"{float(value):.0%}"


def extremes(values: Sequence[float], digits: int = 2, *, as_percent: bool = False):
    """``(highest, lowest)``: the positions of ``values`` whose shown value (``digits``
    decimals, or whole percentages) equals the highest, and the lowest, shown value.

    Each is a list of indices in order; one index means that value stands out.
    """
    texts = [percent(v) if as_percent else shown(v, digits) for v in values]
    if not texts:
        raise ValueError("No values to compare.")
    numbers = np.array([float(t.rstrip("%")) for t in texts])
    top, bottom = numbers.max(), numbers.min()
    return (
        [i for i, n in enumerate(numbers) if n == top],
        [i for i, n in enumerate(numbers) if n == bottom],
    )


def all_tie(values: Sequence[float], digits: int = 2) -> bool:
    """True when every value shows the same at ``digits`` decimals: nothing can be ranked."""
    return len({shown(v, digits) for v in values}) <= 1


def join(names: Sequence[str], last: str = "and") -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    names = [str(n) for n in names]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {last} {names[-1]}"


def lowered(label: object) -> str:
    """``"Mean of tokens"`` -> ``"mean of tokens"`` inside a sentence; ``"[CLS] token"`` stays."""
    text = str(label)
    return text[:1].lower() + text[1:] if text[1:2].islower() else text
