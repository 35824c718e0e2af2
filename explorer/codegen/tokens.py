"""The Tokens page's "Show code": tokenize a text (or a pair) with plain transformers."""

from __future__ import annotations

from explorer.codegen import literal, model_preamble
from explorer.model.ref import ModelRef


def tokens_snippet(ref: ModelRef, text: str, pair: str | None = None, max_length: int = 512) -> str:
    """A runnable program printing the tokens, ids, token type ids and offsets of ``text``.

    ``pair`` adds a second segment (token type id 1 for BERT); ``max_length`` is the model's
    token limit (``Model.max_length``), where the tokenizer truncates. After running, the
    program's namespace holds ``encoding``, ``tokens``, ``ids``, ``types`` and ``offsets``
    (one entry per token).
    """
    return (
        model_preamble(ref)
        + "\n"
        + f"text = {literal(text)}\n"
        + "# pair: a second sentence (segment id 1), or None\n"
        + f"pair = {literal(pair)}\n"
        + "\n"
        + "encoding = tokenizer(\n"
        "    text,\n"
        "    pair,\n"
        "    truncation=True,\n"
        f"    max_length={int(max_length)},\n"
        "    return_offsets_mapping=True,\n"
        "    return_token_type_ids=True,\n"
        ")\n"
        'ids = encoding["input_ids"]\n'
        "tokens = tokenizer.convert_ids_to_tokens(ids)\n"
        'types = encoding["token_type_ids"]  # segment ids: 0 = text, 1 = pair\n'
        'offsets = encoding["offset_mapping"]  # (start, end) characters; (0, 0) if special\n'
        "print(f\"{'token':<16} {'id':>6} {'type':>4}  offsets\")\n"
        "for token, token_id, type_id, (start, end) in zip(tokens, ids, types, offsets):\n"
        '    print(f"{token:<16} {token_id:>6} {type_id:>4}  {start}-{end}")\n'
        "pieces = zip(encoding.sequence_ids(), encoding.word_ids())\n"
        "per_word = {}  # (segment, word) -> its pieces; special tokens belong to no word\n"
        "for segment, word in pieces:\n"
        "    if word is not None:\n"
        "        per_word[segment, word] = per_word.get((segment, word), 0) + 1\n"
        "words, split = len(per_word), sum(n > 1 for n in per_word.values())\n"
        "special = len(tokens) - sum(per_word.values())\n"
        'print(f"{words} words became {sum(per_word.values())} pieces: {split} split; with the "\n'
        '      f"{special} special tokens the model reads {len(tokens)} tokens")\n'
        "if encoding.encodings[0].overflowing:\n"
        '    print(f"Truncated: only the first {len(tokens)} tokens were kept.")\n'
    )
