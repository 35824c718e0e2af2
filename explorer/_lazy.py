"""Names a package imports on first use (PEP 562), so that importing it stays cheap (no torch)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


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
