"""Which model: a hub id or a folder, with its trained weights or random ones.

A :class:`ModelRef` is the one value that names a model from the page to the forward pass: the
picker makes it, caches key by it, :func:`explorer.model.loading.load_ref` loads it through a
:class:`~explorer.model.cache.ModelCache`, and the loaded :class:`~explorer.model.Model` carries
it back (``model.ref``). Its text form (:attr:`ModelRef.link`) is what a person types or a link
holds: the source itself, or ``random-weights:<source>`` for its untrained twin;
:meth:`ModelRef.parse` reads it back, the only place that form is read. Imports no torch.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

RANDOM_PREFIX = "random-weights:"
"""The text form of a model with random weights starts with this (``random-weights:<source>``)."""

RANDOM_SUFFIX = " (random weights)"
"""A loaded model with random weights names itself ``<source> (random weights)``
(``Model.name``, and so a store's manifest records it)."""

HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$")
"""A Hugging Face id: ``name`` or ``org/name``."""

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_UNSAFE = "\0\n\r\t;|&$`<>*?\"'"
_MAX_LENGTH = 1000


def check_source(source: str) -> None:
    """Raise ``ValueError`` (naming ``source``) when it cannot be a hub id or a folder path by
    its shape alone: a URL, a shell or control character, or over 1,000 characters. Whether
    the folder exists or the id is on the hub is asked when the model loads."""
    if _URL.match(source):
        raise ValueError(
            f"{source!r} is a URL; give a Hugging Face model id such as 'bert-base-uncased' "
            "or the path of a local model folder."
        )
    if any(c in source for c in _UNSAFE):
        raise ValueError(f"{source!r} is neither a Hugging Face model id nor a folder path.")
    if len(source) > _MAX_LENGTH:
        raise ValueError("That model name is too long to be a Hugging Face id or a folder path.")


@dataclass(frozen=True)
class ModelRef:
    """A model to load: ``source``, a Hugging Face id or a local folder (as given, without
    surrounding spaces), and ``random``: its architecture and tokenizer with freshly initialised
    weights (:func:`explorer.model.loading.random_weights`, seed 0) instead of its trained ones.
    Frozen and hashable: caches key by it. Make one from text with :meth:`parse`; load it with
    :func:`explorer.model.loading.load_ref`."""

    source: str
    random: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.source, str) or not self.source.strip():
            raise ValueError(f"A model reference needs a hub id or a folder, not {self.source!r}.")
        if self.source != self.source.strip():
            raise ValueError(f"{self.source!r} has spaces around it; give it without them.")

    @classmethod
    def parse(cls, text: str) -> ModelRef:
        """The model that ``text`` names: a hub id or a folder (trained weights), or
        ``random-weights:<id or folder>`` (its random weights). Raises ``ValueError`` naming
        ``text`` when it is empty, names random weights of nothing or of random weights, or
        cannot be an id or a path (:func:`check_source`)."""
        if not isinstance(text, str):
            raise ValueError(f"A model is named by text, not {type(text).__name__} ({text!r}).")
        source = text.strip()
        random = source.startswith(RANDOM_PREFIX)
        source = source.removeprefix(RANDOM_PREFIX).strip()
        if not source:
            raise ValueError(f"{text!r} names no model: give a Hugging Face id or a folder.")
        if source.startswith(RANDOM_PREFIX):
            raise ValueError(f"{text!r} names random weights twice; write the prefix once.")
        check_source(source)
        return cls(source, random)

    def __str__(self) -> str:
        return self.link

    @property
    def link(self) -> str:
        """The text form (what :meth:`parse` reads): ``source``, or
        ``random-weights:<source>``."""
        return RANDOM_PREFIX + self.source if self.random else self.source

    def label(self, label_of: Callable[[str], str] = str) -> str:
        """What people see: ``label_of(source)`` (the operator's label for it, say), followed
        by "with random weights" for random weights."""
        named = label_of(self.source)
        return f"{named} with random weights" if self.random else named

    def random_twin(self) -> ModelRef:
        """The same architecture and tokenizer with random weights."""
        return ModelRef(self.source, random=True)

    def trained(self) -> ModelRef:
        """The model with its trained weights (itself when it has them)."""
        return ModelRef(self.source)
