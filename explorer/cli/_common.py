"""Small helpers the ``explorer`` subcommands share: a layer argument, a duration, a size, and
:func:`say`, which every line the command line prints goes through."""

from __future__ import annotations

import sys


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


def terminal_text(text: str) -> str:
    """``text`` harmless on a terminal: every character Python calls unprintable but a newline
    or a tab (C0 and C1 controls, ESC and so every escape sequence, DEL, format characters such
    as bidirectional overrides, separators other than a space) is written as its escape
    (``\\x1b``), so a text, label or column name from the data cannot clear the screen, set
    the window title or write to the clipboard (OSC 52)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in "\n\t" else repr(c)[1:-1] for c in text)


def say(text: str, error: bool = False) -> None:
    """Print ``text`` (made :func:`terminal_text`) on stdout, or stderr with ``error``."""
    print(terminal_text(text), file=sys.stderr if error else sys.stdout)
