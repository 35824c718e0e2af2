"""The walls docs/architecture.md draws between packages, read from the import statements.

- The library (everything under explorer/ but explorer/ui/ and explorer/server/) does not import
  explorer.server: the server passes its caps in as arguments.
- The library does not import explorer.codegen either: the snippets stand above what they
  reproduce (a choice's torch expression is the library's, in explorer/expressions.py).
- A module named with a leading underscore is private to its package: only modules inside that
  package import it (others import the package's face).
- Streamlit's private runtime (``streamlit.runtime``, ``streamlit.web``) is imported in one
  module, explorer/ui/_streamlit_runtime.py.
- No module or package of explorer/ui/ is named like a module or package of the library (at the
  top of explorer/, or in figures/ and codegen/), so nothing needs a name of its own when
  imported.
- No import renames what it imports (``import a as b``), but for the third-party conventions of
  :data:`CONVENTIONS`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREES = ("explorer", "pages", "bench", "harness")


def _modules():
    """``(dotted name, path, is package face)`` of every Python file in :data:`TREES`."""
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            face = parts[-1] == "__init__"
            if face:
                parts.pop()
            yield ".".join(parts), path, face


def _exists(dotted: str) -> bool:
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports(path: Path, name: str, face: bool) -> list[tuple[int, str]]:
    """``(line, module)`` of every module ``path`` imports (relative imports resolved; for
    ``from X import y``, ``X.y`` too when it is a module of this repository)."""
    found = []
    package = name if face else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, module] if module else base)
            found.append((node.lineno, module))
            for alias in node.names:
                if _exists(f"{module}.{alias.name}"):
                    found.append((node.lineno, f"{module}.{alias.name}"))
    return found


def _inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_library_does_not_import_the_server():
    doors = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for name, path, face in _modules()
        if _inside(name, "explorer")
        and not _inside(name, "explorer.ui")
        and not _inside(name, "explorer.server")
        for line, module in imports(path, name, face)
        if _inside(module, "explorer.server")
    ]
    assert doors == []


def test_the_library_does_not_import_the_snippets():
    doors = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for name, path, face in _modules()
        if _inside(name, "explorer")
        and not any(_inside(name, f"explorer.{above}") for above in ("ui", "server", "codegen"))
        for line, module in imports(path, name, face)
        if _inside(module, "explorer.codegen")
    ]
    assert doors == []


def private_doors() -> list[str]:
    """Imports of a private module (a name part starting with ``_``) from outside its package."""
    doors = []
    for name, path, face in _modules():
        for line, module in imports(path, name, face):
            parts = module.split(".")
            if parts[0] != "explorer":
                continue
            private = next((i for i, p in enumerate(parts) if p.startswith("_")), None)
            if private is None:
                continue
            owner = ".".join(parts[:private])
            if not _inside(name, owner):
                doors.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return doors


def test_no_module_imports_another_packages_private_module():
    assert private_doors() == []


@pytest.mark.parametrize("runtime", ["streamlit.runtime", "streamlit.web"])
def test_streamlit_private_runtime_is_imported_in_one_module(runtime):
    importers = sorted(
        str(path.relative_to(ROOT))
        for name, path, face in _modules()
        if any(_inside(module, runtime) for _, module in imports(path, name, face))
    )
    assert set(importers) <= {"explorer/ui/_streamlit_runtime.py"}


LAZY_FACES = ("explorer", "explorer.model", "explorer.similarity", "explorer.data.store")


@pytest.mark.parametrize("face", LAZY_FACES)
def test_a_lazy_face_lists_each_name_once_and_serves_it(face):
    import importlib

    module = importlib.import_module(face)
    source = Path(module.__file__).read_text(encoding="utf-8")
    for name in module.__all__:
        # once: in its TYPE_CHECKING re-export, nowhere else as a quoted string
        assert source.count(f"import {name} as {name}\n") == 1, name
        assert f'"{name}"' not in source, name
        assert getattr(module, name) is not None
    assert module.__all__ and set(module.__all__) <= set(dir(module))


def test_a_lazy_face_refuses_a_renamed_name(tmp_path):
    from explorer._lazy import lazy_homes

    face = tmp_path / "face.py"
    face.write_text("if TYPE_CHECKING:\n    from explorer.words import Occurrence as Other\n")
    with pytest.raises(ValueError, match="renamed Other"):
        lazy_homes(str(face))


def test_the_lazy_faces_import_without_torch():
    import subprocess
    import sys

    code = (
        "import sys, explorer, explorer.model, explorer.similarity, explorer.data.store\n"
        "import explorer.server.settings, explorer.codegen\n"
        "print('torch' in sys.modules)"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "False"


def _public_names(folder: Path) -> set[str]:
    """Names of the public modules and packages under ``folder`` (at any depth)."""
    names = set()
    for path in folder.rglob("*.py"):
        parts = path.relative_to(folder).with_suffix("").parts
        names.update(p for p in parts if not p.startswith("_"))
    return names


def test_no_ui_module_is_named_like_a_library_module():
    explorer = ROOT / "explorer"
    library = {
        path.stem if path.suffix == ".py" else path.name
        for path in explorer.iterdir()
        if (path.suffix == ".py" or (path / "__init__.py").is_file())
        and not path.name.startswith("_")
        and path.name != "ui"
    }
    library |= _public_names(explorer / "figures") | _public_names(explorer / "codegen")
    assert sorted(_public_names(explorer / "ui") & library) == []


CONVENTIONS = {
    "numpy": "np",
    "pandas": "pd",
    "streamlit": "st",
    "plotly.graph_objects": "go",
    "plotly.io": "pio",
    "pyarrow": "pa",
    "pyarrow.compute": "pc",
    "pyarrow.parquet": "pq",
}
"""The only renaming imports allowed: third-party modules under their usual short names."""


def renaming_imports(paths) -> list[str]:
    """``path:line import a as b`` for every import in ``paths`` that names what it imports
    differently (``from m import a as a``, a face's explicit re-export, renames nothing)."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for alias in node.names:
                if alias.asname in (None, alias.name.rpartition(".")[2]):
                    continue
                if (
                    not isinstance(node, ast.ImportFrom)
                    and CONVENTIONS.get(alias.name) == alias.asname
                ):
                    continue
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                found.append(f"{where}:{node.lineno} import {alias.name} as {alias.asname}")
    return found


def test_no_import_renames_what_it_imports():
    paths = [ROOT / "app.py", *(ROOT / "explorer").rglob("*.py"), *(ROOT / "pages").rglob("*.py")]
    assert renaming_imports(sorted(paths)) == []


def test_a_renaming_import_is_found(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "import numpy as np\nimport numpy as n\nfrom explorer import similarity as search\n"
        "from explorer.words import Occurrence as Occurrence\nimport explorer.model.precision\n"
        "from numpy import linalg as la\n"
    )
    found = [line.split(":", 1)[1] for line in renaming_imports([module])]
    assert found == [
        "2 import numpy as n",
        "3 import similarity as search",
        "6 import linalg as la",
    ]
