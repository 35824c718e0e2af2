"""Small random model folders for the tests, all made by one builder.

:func:`save_random_model` writes a model of random weights (seed 0, eval mode) and its
tokenizer into a folder that :func:`explorer.load_model` reads. The tokenizers come from
:func:`bundled_vocab_tokenizer` (the bundled model's uncased WordPiece vocab, optionally with its
special tokens renamed) or :func:`other_tokenizer` (a cased WordPiece of its own, trained here).
The session fixtures in tests/conftest.py call these once per test session.
"""

from __future__ import annotations

from pathlib import Path

import torch

from explorer.model.loading import bundled_model_path

CORPUS = (
    "The bank robber was seen fishing on the river bank.",
    "She sat on the bank of the river and watched the water.",
    "The bank raised its interest rates again this year.",
    "A bat flew out of the cave at dusk.",
    "He swung the bat and hit the ball over the fence.",
    "Spring is the season when the flowers bloom.",
    "The spring in the old mattress was broken.",
    "Tokenizers cut words into pieces, and models read the pieces.",
)
"""What :func:`other_tokenizer` learns its pieces from."""

ROBERTA_SPECIALS = {
    "[PAD]": "<pad>",
    "[UNK]": "<unk>",
    "[CLS]": "<s>",
    "[SEP]": "</s>",
    "[MASK]": "<mask>",
}
"""The bundled vocab's special tokens renamed as RoBERTa's (and MPNet's)."""


def save_random_model(folder: Path, config, model_class, tokenizer) -> str:
    """Write ``model_class(config)`` with random weights (``torch.manual_seed(0)``, eval mode)
    and ``tokenizer`` to ``folder``; returns the folder as a string for
    :func:`explorer.load_model`."""
    torch.manual_seed(0)
    model_class(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def save_copy(source: str, folder: Path, *, seed: int | None = None, dtype=None) -> str:
    """The model folder ``source`` written again to ``folder``: with weights drawn afresh under
    ``seed`` when given (its architecture and tokenizer with other "trained" weights: the
    shared tiny models are saved from seed 0, so their random twin equals them), and stored
    in ``dtype`` when given (``torch.float16``: a 16-bit checkpoint)."""
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    if seed is None:
        model = AutoModel.from_pretrained(source, dtype=torch.float32)
    else:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = AutoModel.from_config(AutoConfig.from_pretrained(source))
    model.to(dtype or torch.float32).eval().save_pretrained(folder)
    AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    return str(folder)


def bundled_vocab_tokenizer(tokenizer_class, folder: Path | None = None, **specials):
    """``tokenizer_class`` over the bundled model's uncased WordPiece vocab, with its maximum
    length. ``specials`` (``cls_token="<s>"``, ...) rename special tokens: the vocab is then
    written to ``folder`` with :data:`ROBERTA_SPECIALS`' names in place of ``[CLS]``, ...."""
    from transformers import AutoTokenizer

    vocab = bundled_model_path() / "vocab.txt"
    if specials:
        words = vocab.read_text(encoding="utf-8").splitlines()
        vocab = folder / "source-vocab.txt"
        vocab.write_text("\n".join(ROBERTA_SPECIALS.get(w, w) for w in words) + "\n", "utf-8")
    tokenizer = tokenizer_class(vocab=str(vocab), do_lower_case=True, **specials)
    tokenizer.model_max_length = AutoTokenizer.from_pretrained(
        bundled_model_path()
    ).model_max_length
    return tokenizer


def save_random(folder: Path, config, model_class, tokenizer_class) -> str:
    """A random ``model_class(config)`` with the bundled vocab (:func:`bundled_vocab_tokenizer`)."""
    return save_random_model(folder, config, model_class, bundled_vocab_tokenizer(tokenizer_class))


def save_random_bert(folder: Path, masked_lm: bool = False, **shape) -> str:
    """A random BERT (``BertForMaskedLM`` with ``masked_lm``) of ``shape`` (``hidden_size=32``,
    ``num_hidden_layers=4``, ...: :class:`transformers.BertConfig`'s names) with the bundled
    vocab."""
    from transformers import BertConfig, BertForMaskedLM, BertModel, BertTokenizer

    config = BertConfig(vocab_size=30522, **shape)
    model_class = BertForMaskedLM if masked_lm else BertModel
    return save_random(folder, config, model_class, BertTokenizer)


def other_tokenizer(vocab_size: int = 300):
    """A cased WordPiece of a few hundred pieces trained on :data:`CORPUS`, split on whitespace
    only (so "bank," is one word, where the bundled tokenizer splits off the comma)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=100))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.decoder = decoders.WordPiece()
    tokenizer.train_from_iterator(
        CORPUS, trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials)
    )
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=128,
    )
