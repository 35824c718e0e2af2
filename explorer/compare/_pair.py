"""Whether two models fit a server together: their weights' bytes, estimated before loading
from the configuration, against the bytes of models the server keeps
(``EXPLORER_MODEL_MEMORY``)."""

from __future__ import annotations

from collections.abc import Sequence

BYTES_PER_PARAMETER = 4
"""The models load as float32."""

MB = 2**20


def estimated_weight_bytes(source: str) -> int:
    """Bytes of weights ``source`` (a hub id in the local cache or on the hub, or a folder)
    would take once loaded: its configuration's parameter count
    (:func:`explorer.model.size.estimate_parameters`) x 4. Reads ``config.json`` only.
    ``ValueError`` when the configuration cannot be read."""
    from transformers import AutoConfig

    from explorer.model.hub import DEFAULT_MODEL, offline
    from explorer.model.loading import bundled_model_path
    from explorer.model.size import estimate_parameters

    path = bundled_model_path() if source == DEFAULT_MODEL else None
    try:
        config = AutoConfig.from_pretrained(str(path or source), local_files_only=offline())
    except (OSError, ValueError, TypeError) as error:
        raise ValueError(f"Could not read the configuration of {source!r}: {error}") from None
    return estimate_parameters(config) * BYTES_PER_PARAMETER


def pair_refusal(
    label_a: str,
    bytes_a: int,
    label_b: str,
    bytes_b: int,
    max_bytes: int,
    fitting: Sequence[str] = (),
) -> str | None:
    """Why models A (``bytes_a`` of weights) and B cannot be compared on a server that keeps
    ``max_bytes`` of models, or ``None`` when they fit together. ``fitting`` names the
    choices of model B that would fit beside A (said in the refusal)."""
    if bytes_a + bytes_b <= max_bytes:
        return None
    instead = (
        f"Beside {label_a}, these fit: {', '.join(fitting)}."
        if fitting
        else f"No other choice of model B fits beside {label_a}; a smaller model A would."
    )
    return (
        f"{label_a} ({bytes_a / MB:,.0f} MB of weights) and {label_b} ({bytes_b / MB:,.0f} MB) "
        f"need {(bytes_a + bytes_b) / MB:,.0f} MB together, more than this server keeps loaded "
        f"({max_bytes / MB:,.0f} MB). {instead}"
    )
