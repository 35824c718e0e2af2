"""Names a package imports on first use (PEP 562), so that importing it stays cheap (no torch).

A lazy face lists each of its names once, in an ``if TYPE_CHECKING:`` block of re-exports
(``from explorer.words import Occurrence as Occurrence``): type checkers and IDEs read that block
as it is (the redundant ``as`` marks a re-export, as ``__all__`` would), and :func:`lazy_homes`
reads the same block at import time to build the name -> module map that the face's
``__getattr__``, ``__dir__`` and ``__all__`` are made from. Reading it from the source costs a
parse of the face (about a millisecond) and keeps one list, with no second copy to drift.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path


def lazy_homes(path: str) -> dict[str, str]:
    """name -> the module it lives in, for every name the face at ``path`` (its ``__file__``)
    imports in its top-level ``if TYPE_CHECKING:`` block, in their order. Raises ``ValueError``
    for a renaming import there (``from m import a as b``): a lazy name is its home's name."""
    homes: dict[str, str] = {}
    for node in ast.parse(Path(path).read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom) or statement.level:
                raise ValueError(f"{path}: only absolute from-imports under TYPE_CHECKING")
            for alias in statement.names:
                if alias.asname not in (None, alias.name):
                    raise ValueError(f"{path}: {alias.name} is renamed {alias.asname}")
                homes[alias.name] = str(statement.module)
    return homes


def lazy_getattr(package: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """A module-level ``__getattr__`` for ``package`` (its ``__name__``): a name of ``homes``
    (name -> the module it lives in) is imported from there on first use and kept in the
    package's namespace; any other name raises ``AttributeError``.

    In the package's ``__init__.py``: ``__getattr__ = lazy_getattr(__name__, _HOMES)``.
    """
    namespace = vars(sys.modules[package])

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return __getattr__


def lazy_dir(package: str, homes: Mapping[str, str]) -> Callable[[], list[str]]:
    """A module-level ``__dir__`` for ``package`` that lists the names of ``homes`` too, before
    they are imported: ``__dir__ = lazy_dir(__name__, _HOMES)``."""
    namespace = vars(sys.modules[package])

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __dir__
