"""Small helpers the ``explorer`` subcommands share: a layer argument, a duration, a size."""

from __future__ import annotations


def layer_arg(value: str):
    """``--layer``: a layer number, else the name of a layer choice (checked by the library)."""
    try:
        return int(value)
    except ValueError:
        return value


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {seconds:02d}s"


def size_text(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TB"
