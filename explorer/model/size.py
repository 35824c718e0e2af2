"""A model's size from its configuration, before any weight is read.

:func:`estimate_parameters` counts the parameters a BERT-family encoder will have from its
``config.json`` alone, so :func:`explorer.model.load_model` can refuse a model that is too
large before reading or downloading any weights. It reads the fields each type documents,
so a config that sets a field its architecture ignores (BERT with ``"embedding_size": 1``)
can make it count too few: :func:`count_parameters` then counts the architecture itself,
built on PyTorch's meta device (shapes without memory).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

_POOLED = ("albert", "bert", "camembert", "ernie", "mobilebert", "mpnet", "roberta", "xlm-roberta")
"""Types whose ``AutoModel`` has a pooler (a dense layer on ``[CLS]``)."""


def estimate_parameters(config: Any) -> int:
    """The parameter count of the encoder ``AutoModel`` builds from ``config``.

    ``config`` is a ``transformers`` configuration or the dict of a ``config.json`` (its
    ``model_type`` picks the defaults). Counted: the embeddings (word, position, token type,
    their layer norm and any projection), every layer (attention, feed-forward, layer
    norms, biases), relative-position tables and the pooler. Within 1 % of
    ``sum(p.numel() for p in model.parameters())`` for the supported types.

    Raises ``ValueError`` when the configuration has no usable sizes.
    """
    if isinstance(config, Mapping):
        config = _config_from_dict(config)
    try:
        model_type = str(config.model_type)
        if model_type == "distilbert":
            return _distilbert(config)
        if model_type == "modernbert":
            return _modernbert(config)
        if model_type == "mobilebert":
            return _mobilebert(config)
        return _bert_like(config, model_type)
    except (AttributeError, TypeError, ValueError) as error:
        raise ValueError(f"The model's configuration has no usable sizes ({error}).") from None


MAX_LAYERS = 96
"""Most layers a sized model may have: twice the deepest BERT-family encoder
(DeBERTa-v2-xxlarge, 48). Building each layer on the meta device takes about 5 ms, so a
config declaring 100,000 tiny layers would hold a server for minutes before being counted."""


_BUILD_ERRORS = (
    ArithmeticError,
    AttributeError,
    IndexError,
    KeyError,
    RuntimeError,
    TypeError,
    ValueError,
)
"""What building an architecture from a nonsensical configuration raises."""


def count_parameters(config: Any) -> int:
    """The parameter count of the model ``AutoModel.from_config(config)`` builds, with no
    memory for its weights (built on the meta device; shared weights counted once). About
    0.04 s for a BERT-base configuration once ``transformers`` has imported the type's code.

    Raises ``ValueError`` for more than :data:`MAX_LAYERS` layers, or a configuration the
    architecture cannot be built from."""
    import torch
    from transformers import AutoModel

    layers = getattr(config, "num_hidden_layers", None) or getattr(config, "n_layers", 0)
    if isinstance(layers, int) and layers > MAX_LAYERS:
        raise ValueError(
            f"The model's configuration declares {layers:,} layers; this server sizes models "
            f"of at most {MAX_LAYERS} (BERT-family encoders have up to 48)."
        )
    try:
        with torch.device("meta"):
            model = AutoModel.from_config(copy.deepcopy(config), trust_remote_code=False)
    except _BUILD_ERRORS as error:
        raise ValueError(f"The model's configuration cannot be built ({error}).") from None
    return sum(parameter.numel() for parameter in model.parameters())


def format_parameters(count: int) -> str:
    """``335 M``, ``1.2 B`` or ``12,345``: a parameter count for a message."""
    if count >= 10**9:
        return f"{count / 1e9:,.1f} B"
    if count >= 10**6:
        return f"{count / 1e6:,.0f} M"
    return f"{count:,}"


def check_size(label: str, estimate: int, max_parameters: int | None) -> None:
    """Raise ``ValueError`` when ``estimate`` exceeds ``max_parameters`` (``None``: no limit)."""
    if max_parameters is not None and estimate > max_parameters:
        raise ValueError(
            f"{label} has about {format_parameters(estimate)} parameters; this server allows "
            f"at most {format_parameters(max_parameters)}."
        )


def _config_from_dict(values: Mapping[str, Any]) -> Any:
    from huggingface_hub.errors import StrictDataclassError
    from transformers import AutoConfig

    values = dict(values)
    model_type = values.pop("model_type", None)
    if not isinstance(model_type, str):
        raise ValueError("The model's configuration names no model_type.")
    try:
        return AutoConfig.for_model(model_type, **values)
    except (KeyError, TypeError, ValueError, StrictDataclassError) as error:
        raise ValueError(f"The model's configuration cannot be read ({error}).") from None


def _size(config: Any, name: str, default: int | None = None) -> int:
    value = getattr(config, name, None)
    if value is None:
        if default is None:
            raise ValueError(f"{name} is missing")
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"{name} is {value!r}")
    return int(value)


def _layer(hidden: int, intermediate: int) -> int:
    """One post-norm transformer layer with biases: Q, K, V, output, FFN, two layer norms."""
    attention = 4 * (hidden * hidden + hidden) + 2 * hidden
    feed_forward = hidden * intermediate + intermediate + intermediate * hidden + hidden
    return attention + feed_forward + 2 * hidden


def _bert_like(config: Any, model_type: str) -> int:
    """BERT, RoBERTa, XLM-R, CamemBERT, ERNIE, ELECTRA, ALBERT, MPNet, DeBERTa (v1, v2)."""
    hidden = _size(config, "hidden_size")
    intermediate = _size(config, "intermediate_size")
    layers = _size(config, "num_hidden_layers")
    heads = _size(config, "num_attention_heads", 1)
    width = _size(config, "embedding_size", hidden) or hidden
    positions = _size(config, "max_position_embeddings", 512)
    deberta = model_type.startswith("deberta")

    embeddings = _size(config, "vocab_size") * width + 2 * width
    if not deberta or getattr(config, "position_biased_input", True):
        embeddings += positions * width
    if model_type != "mpnet":
        embeddings += _size(config, "type_vocab_size", 0) * width
    if model_type == "ernie" and getattr(config, "use_task_id", False):
        embeddings += _size(config, "task_type_vocab_size", 3) * width
    if width != hidden:  # ALBERT, ELECTRA, DeBERTa project the embeddings to the hidden size
        embeddings += width * hidden + (0 if deberta else hidden)
    if deberta:  # its embedding layer norm is on the hidden size
        embeddings += 2 * (hidden - width)

    if model_type == "albert":  # layers share weights within a group
        layers = _size(config, "num_hidden_groups", 1) * _size(config, "inner_group_num", 1)
    total = embeddings + layers * _layer(hidden, intermediate)
    if model_type == "mpnet":
        total += _size(config, "relative_attention_num_buckets", 32) * heads
    if deberta:
        total += _deberta_relative(config, model_type, hidden, layers, positions)
    if model_type in _POOLED:
        total += hidden * hidden + hidden
    return total


def _deberta_relative(
    config: Any, model_type: str, hidden: int, layers: int, positions: int
) -> int:
    """DeBERTa's relative-position table and position projections (biases differ slightly)."""
    if not getattr(config, "relative_attention", False):
        return 0
    span = int(getattr(config, "max_relative_positions", -1) or -1)
    span = positions if span < 1 else span
    buckets = getattr(config, "position_buckets", -1) if model_type == "deberta-v2" else -1
    total = 2 * (buckets if buckets and buckets > 0 else span) * hidden
    kinds = getattr(config, "pos_att_type", None) or []
    projections = sum(kind in kinds for kind in ("c2p", "p2c"))
    if model_type == "deberta-v2":
        if "layer_norm" in (getattr(config, "norm_rel_ebd", "none") or "none"):
            total += 2 * hidden
        if getattr(config, "share_att_key", False):
            projections = 0
        kernel = _size(config, "conv_kernel_size", 0)
        if kernel:
            total += hidden * hidden * kernel + hidden + 2 * hidden
    return total + layers * projections * (hidden * hidden + hidden)


def _distilbert(config: Any) -> int:
    hidden = _size(config, "dim")
    embeddings = (
        _size(config, "vocab_size") + _size(config, "max_position_embeddings", 512)
    ) * hidden
    return (
        embeddings
        + 2 * hidden
        + _size(config, "n_layers") * _layer(hidden, _size(config, "hidden_dim"))
    )


def _modernbert(config: Any) -> int:
    """Pre-norm layers without biases by default, a gated MLP (``Wi`` is twice as wide)."""
    hidden = _size(config, "hidden_size")
    intermediate = _size(config, "intermediate_size")
    layers = _size(config, "num_hidden_layers")
    norm = hidden * (2 if getattr(config, "norm_bias", False) else 1)
    attention_bias = getattr(config, "attention_bias", False)
    mlp_bias = getattr(config, "mlp_bias", False)
    attention = 4 * hidden * hidden + (4 * hidden if attention_bias else 0)
    mlp = 3 * hidden * intermediate + ((2 * intermediate + hidden) if mlp_bias else 0)
    per_layer = attention + mlp + 2 * norm
    # The first layer has no attention norm; the embeddings and the output have one norm each.
    return _size(config, "vocab_size") * hidden + layers * per_layer + norm


def _mobilebert(config: Any) -> int:
    """Bottlenecked layers: attention on ``true_hidden_size``, several small FFNs a layer."""
    hidden = _size(config, "hidden_size")
    intermediate = _size(config, "intermediate_size")
    width = _size(config, "embedding_size", 128)
    use_bottleneck = getattr(config, "use_bottleneck", True)
    inner = _size(config, "intra_bottleneck_size", 128) if use_bottleneck else hidden
    trigram = 3 if getattr(config, "trigram_input", True) else 1

    embeddings = _size(config, "vocab_size") * width
    embeddings += (
        _size(config, "max_position_embeddings", 512) + _size(config, "type_vocab_size", 2)
    ) * hidden
    embeddings += trigram * width * hidden + hidden + 2 * hidden

    value_in = inner if getattr(config, "use_bottleneck_attention", False) else hidden
    attention = 3 * (inner * inner + inner) + value_in * inner + inner + 2 * inner
    ffn = inner * intermediate + intermediate + intermediate * inner + inner + 2 * inner
    layer = attention + _size(config, "num_feedforward_networks", 1) * ffn
    layer += inner * hidden + hidden + 2 * hidden  # output bottleneck back to the hidden size
    if use_bottleneck:
        bottleneck = hidden * inner + inner + 2 * inner
        shared = getattr(config, "key_query_shared_bottleneck", True)
        layer += bottleneck * (
            2 if shared or getattr(config, "use_bottleneck_attention", False) else 1
        )
    total = embeddings + _size(config, "num_hidden_layers") * layer
    if getattr(config, "classifier_activation", True):
        total += hidden * hidden + hidden
    return total
