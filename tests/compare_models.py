"""A tiny random BERT whose tokenizer differs from the bundled model's: a cased WordPiece of a
few hundred pieces trained here on a few sentences, split on whitespace only (so "bank," is one
word, where the bundled tokenizer splits off the comma). For the comparison tests."""

from __future__ import annotations

from pathlib import Path

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


def save_other_tokenizer_bert(folder: Path, vocab_size: int = 300) -> str:
    """Write the tiny BERT (3 layers x 32, random weights, seed 0) and its own tokenizer to
    ``folder``; returns the folder as a string for :func:`explorer.load_model`."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

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
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=128,
    )
    fast.save_pretrained(folder)
    config = BertConfig(
        vocab_size=len(fast),
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    torch.manual_seed(0)
    BertModel(config).eval().save_pretrained(folder)
    return str(folder)
