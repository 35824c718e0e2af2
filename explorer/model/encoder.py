"""The model wrapper: a fast tokenizer and an encoder, run for hidden states.

A :class:`Model` tokenizes (with character offsets), batches, and runs the encoder under
``torch.inference_mode()``; hidden states come out as float32 with the layer axis first
(index 0 = embedding output). Build one with :func:`explorer.model.load_model`.

A special token typed in a text ("[CLS]", "[SEP]", "[PAD]", "[MASK]", RoBERTa's "<s>" ...) is
read as the plain text it is (the tokenizer's ``split_special_tokens``): only the tokenizer
adds special tokens, so a text cannot start a second segment, pad itself or hide words from
the pooling. (The masked-LM lens, :mod:`explorer.attention`, reads its "[MASK]" on purpose.)
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence

import numpy as np
import torch

import explorer.model.precision
from explorer.model.batching import MAX_BATCH_SIZE, MAX_BATCH_TOKENS, Batch, make_batches, pad_rows
from explorer.model.forward import Progress, forward_batches
from explorer.model.ref import ModelRef
from explorer.model.tokenization import Tokenization, clean_text


class Model:
    """A loaded encoder with its tokenizer. Build it with :func:`load_model`.

    Attributes: ``name`` (what the user asked for), ``source`` (the folder or hub id loaded),
    ``ref`` (the :class:`~explorer.model.ref.ModelRef` it was loaded from: ``name``'s, trained,
    unless given),
    ``num_layers`` (encoder layers; hidden states have ``num_layers + 1`` entries),
    ``hidden_size``, ``max_length`` (tokens per input, special tokens included),
    ``vocab_size``, ``num_parameters``, ``model_type``, ``lowercase`` (uncased vocab) and
    ``masked_lm``: the whole masked-LM module when the checkpoint has a trained head (its
    ``base_model`` *is* ``encoder``: one copy of the weights), else ``None``.
    """

    def __init__(
        self,
        name: str,
        source: str,
        tokenizer,
        encoder: torch.nn.Module,
        masked_lm: torch.nn.Module | None = None,
        ref: ModelRef | None = None,
    ) -> None:
        self.name = name
        self.source = source
        self.ref = ModelRef(name) if ref is None else ref
        self.tokenizer = tokenizer
        self.encoder = encoder.eval()
        self.masked_lm = masked_lm
        config = encoder.config
        self.model_type: str = config.model_type
        inner = getattr(config, "inner_group_num", 1) if self.model_type == "albert" else 1
        # ALBERT: each layer runs its group's inner layers, each with a hidden state and an
        # attention map of its own (transformers 5.23 records every one)
        self.num_layers: int = int(config.num_hidden_layers) * int(inner)
        self.hidden_size: int = int(config.hidden_size)
        self.vocab_size: int = len(tokenizer)
        self.num_parameters: int = sum(p.numel() for p in encoder.parameters())
        positions = getattr(config, "max_position_embeddings", 512)
        if self.model_type in ("roberta", "xlm-roberta", "camembert"):
            positions -= (config.pad_token_id or 0) + 1  # position ids start after padding_idx
        self.max_length: int = int(min(tokenizer.model_max_length, positions))
        self._input_names = [n for n in tokenizer.model_input_names if n != "special_tokens_mask"]
        normalizer = getattr(tokenizer.backend_tokenizer, "normalizer", None)
        self._normalize = normalizer.normalize_str if normalizer is not None else (lambda s: s)
        self.lowercase: bool = self._normalize("A") == "a"
        # Fast tokenizers are not safe to call from several threads at once ("Already
        # borrowed"); Streamlit serves every session from its own thread.
        self._lock = threading.RLock()

    @property
    def weight_bytes(self) -> int:
        """Bytes of the weights this model holds (parameters and buffers of the encoder and
        of the masked-LM head, each shared tensor counted once)."""
        modules = [self.encoder] + ([self.masked_lm] if self.masked_lm is not None else [])
        seen: dict[int, int] = {}
        for module in modules:
            for tensor in [*module.parameters(), *module.buffers()]:
                if tensor.device.type != "meta":
                    seen[tensor.data_ptr()] = tensor.numel() * tensor.element_size()
        return sum(seen.values())

    def __repr__(self) -> str:
        return (
            f"Model({self.name!r}, layers={self.num_layers}, hidden={self.hidden_size}, "
            f"max_length={self.max_length})"
        )

    def normalize(self, word: str) -> str:
        """The tokenizer's normalization of ``word`` (lower-casing for uncased models)."""
        return self._normalize(word).strip()

    # -- tokenization -------------------------------------------------------------------

    def tokenize(
        self, text: str, pair: str | None = None, max_tokens: int | None = None
    ) -> Tokenization:
        """Tokenize ``text`` (and an optional second segment ``pair``) as the model sees it.

        Input longer than ``max_tokens`` (default and at most ``max_length``) tokens is
        truncated (longest segment first) and the result says so in ``truncated``.
        """
        text = clean_text(text)
        pair = clean_text(pair, "Second sentence") if pair is not None else None
        encoding = self._encode(text, pair, offsets=True, max_tokens=max_tokens)
        ids = list(encoding["input_ids"])
        tokens = self.tokenizer.convert_ids_to_tokens(ids)
        return Tokenization(
            text=text,
            pair=pair,
            tokens=tokens,
            ids=ids,
            segment_ids=(
                list(encoding["token_type_ids"])
                if "token_type_ids" in self._input_names
                else [0] * len(ids)
            ),
            attention_mask=list(encoding["attention_mask"]),
            offsets=[tuple(o) for o in encoding["offset_mapping"]],
            word_ids=encoding.word_ids(),
            sequence_ids=encoding.sequence_ids(),
            special=[bool(s) for s in encoding["special_tokens_mask"]],
            truncated=bool(encoding.encodings[0].overflowing),
        )

    def _encode(self, text, pair=None, *, offsets: bool = False, max_tokens: int | None = None):
        """The tokenizer's encoding of ``text`` (a string or a list), truncated to
        ``max_tokens`` (default and at most ``max_length``), with special-token masks and
        segment ids (and character offsets)."""
        limit = self.max_length if max_tokens is None else min(max_tokens, self.max_length)
        with self._lock:  # a fast tokenizer's truncation settings are shared state
            if pair is not None:
                text, pair = self._prefixes(text, pair)
            return self.tokenizer(
                text,
                pair,
                truncation=True,
                max_length=limit,
                return_offsets_mapping=offsets,
                return_special_tokens_mask=True,
                return_token_type_ids=True,
                split_special_tokens=True,  # a typed "[SEP]" is text (module docstring)
            )

    PREFIX_MARGIN = 16
    """Tokens kept past ``max_length`` when a long segment of a pair is cut (:meth:`_prefixes`),
    so that the cut cannot change any token the model reads."""

    def _prefixes(self, text, pair):
        """``(text, pair)`` (strings or lists) with the long segments of each pair cut to a
        prefix of the string (character offsets stay valid) that still holds more than the
        tokenizer keeps, so the tokens, offsets and ``truncated`` are what they would be.

        A segment keeps at most ``max_length + PREFIX_MARGIN`` tokens, one more when it is the
        longer of the two: the tokenizer's longest-first truncation depends only on which
        segment is longer and on the shorter one's length, both of which the cut preserves.

        Why: the fast tokenizer truncates a pair by building every combination of the two
        segments' overflowing windows. Two 100,000-character segments made thousands of
        512-token encodings: +1.3 GB and seconds for one pair (``bench.soak``, Attention)."""
        many = not isinstance(text, str)
        texts, pairs = (list(text), list(pair)) if many else ([text], [pair])
        long = [i for i, (a, b) in enumerate(zip(texts, pairs, strict=True))
                if max(len(a), len(b)) > self.max_length]  # fmt: skip
        if long:
            keep = self.max_length + self.PREFIX_MARGIN
            found = self.tokenizer(
                [texts[i] for i in long] + [pairs[i] for i in long],
                add_special_tokens=False,
                return_offsets_mapping=True,
                verbose=False,
                split_special_tokens=True,
            )["offset_mapping"]
            for n, i in enumerate(long):
                spans_a, spans_b = found[n], found[len(long) + n]
                kept_a = keep + (len(spans_a) > len(spans_b))
                kept_b = keep + (len(spans_b) > len(spans_a))
                if len(spans_a) > kept_a:
                    texts[i] = texts[i][: spans_a[kept_a - 1][1]]
                if len(spans_b) > kept_b:
                    pairs[i] = pairs[i][: spans_b[kept_b - 1][1]]
        return (texts, pairs) if many else (texts[0], pairs[0])

    def encode_batch(
        self, texts: Sequence[str], pairs: Sequence[str] | None = None
    ) -> list[dict[str, list[int]]]:
        """Tokenize many texts (truncated, unpadded): one dict of id lists per text.

        Each dict has ``input_ids``, ``attention_mask``, ``special_tokens_mask`` (and
        ``token_type_ids`` where the tokenizer makes them) plus ``truncated`` (bool).

        Raises ``ValueError`` naming the first text that is empty or has no tokens.
        """
        if isinstance(texts, str):
            raise ValueError("Pass a list of texts, not a single string.")
        texts = [clean_text(t, f"Text {i + 1}") for i, t in enumerate(texts)]
        if not texts:
            raise ValueError("No texts given: pass at least one text.")
        if pairs is not None:
            if len(pairs) != len(texts):
                raise ValueError(f"Got {len(texts)} texts but {len(pairs)} pairs.")
            pairs = [clean_text(p, f"Pair {i + 1}") for i, p in enumerate(pairs)]
        encoded = self._encode(texts, pairs)
        rows = []
        for i in range(len(texts)):
            row = {key: list(encoded[key][i]) for key in encoded.keys()}
            row["truncated"] = bool(encoded.encodings[i].overflowing)
            if all(row["special_tokens_mask"]):
                raise ValueError(
                    f"Text {i + 1} has no tokens the model can read "
                    f"(only spaces or control characters?): {texts[i][:40]!r}"
                )
            rows.append(row)
        return rows

    def batches(
        self,
        encoded: Sequence[dict[str, list[int]]],
        max_batch_size: int = MAX_BATCH_SIZE,
        max_batch_tokens: int = MAX_BATCH_TOKENS,
    ) -> Iterator[Batch]:
        """Group encoded texts into padded batches of similar length.

        Texts are sorted by length so little padding is computed; each batch holds at most
        ``max_batch_size`` texts and ``max_batch_tokens`` padded tokens (and always at least
        one text), and ends early where the next text is so much longer that it would pad
        the others by more than 32 tokens in all.
        """
        return make_batches(
            encoded, self._pad_id, self._input_names, max_batch_size, max_batch_tokens
        )

    def _pad(self, rows: list[dict[str, list[int]]], indices: list[int], pad_id: int) -> Batch:
        return pad_rows(rows, indices, pad_id, self._input_names)

    @property
    def _pad_id(self) -> int:
        return self.tokenizer.pad_token_id or 0

    # -- forward passes -----------------------------------------------------------------

    def forward(self, batch: Batch, precision: str = "float32") -> torch.Tensor:
        """Run one padded batch; return all hidden states, ``(layers + 1, batch, tokens, hidden)``.

        ``precision="bfloat16"`` runs under CPU autocast (faster on CPUs with bf16 support,
        slightly less exact); the result is always float32.
        """
        return torch.stack(self.layer_states(batch, precision))

    def layer_states(
        self, batch: Batch, precision: str = "float32", exclusive: bool = True
    ) -> list[torch.Tensor]:
        """The ``layers + 1`` hidden states of one batch, each ``(batch, tokens, hidden)``
        float32, without stacking them (pooling one layer at a time copies nothing).

        ``exclusive`` holds the model's lock during the pass, so passes of several sessions
        take turns instead of competing for the cores. The encoder itself is safe to call
        from several threads (inference keeps no state):
        :func:`explorer.model.forward.forward_batches` runs its workers with
        ``exclusive=False``.
        """
        lock = self._lock if exclusive else contextlib.nullcontext()
        with lock, torch.inference_mode(), self.autocast(precision):
            output = self.encoder(**batch.inputs, output_hidden_states=True, return_dict=True)
            return [state.float() for state in output.hidden_states]

    @staticmethod
    def autocast(precision: str) -> contextlib.AbstractContextManager:
        """CPU bfloat16 autocast for ``"bfloat16"``, nothing for ``"float32"``
        (:func:`explorer.model.precision.autocast`)."""
        return explorer.model.precision.autocast(precision)

    def hidden_states(self, text: str, pair: str | None = None) -> np.ndarray:
        """All hidden states of one input: ``(num_layers + 1, num_tokens, hidden_size)`` float32.

        Index 0 is the embedding output, index ``num_layers`` the last encoder layer. Tokens
        are those of :meth:`tokenize` (truncated to ``max_length``).
        """
        encoded = self.encode_batch([text], None if pair is None else [pair])
        batch = self._pad(encoded, [0], self._pad_id)
        return self.forward(batch)[:, 0].numpy()

    def hidden_states_batch(
        self, texts: Sequence[str], max_batch_size: int = 32, progress: Progress | None = None
    ) -> list[np.ndarray]:
        """Hidden states of many texts, batched; one ``(layers + 1, tokens_i, hidden)`` each.

        The passes run through :func:`~explorer.model.forward.forward_batches` (which calls
        ``progress(texts_done, total)`` after each batch). Padding is cut off again, so each
        array equals ``hidden_states(text)``.
        """
        encoded = self.encode_batch(texts)
        out: list[np.ndarray | None] = [None] * len(encoded)

        def keep(batch: Batch, states: list[torch.Tensor]) -> None:
            for b, (i, n) in enumerate(zip(batch.indices, batch.lengths, strict=True)):
                out[i] = torch.stack([state[b, :n] for state in states]).numpy()

        batches = list(self.batches(encoded, max_batch_size=max_batch_size))
        forward_batches(self, batches, keep, progress=progress)
        return out  # type: ignore[return-value]
