"""The manifest's schema: what a reader may trust once :func:`check_manifest` has passed.

A store folder in the operator's ``EXPLORER_CORPORA`` is data, not code, and it may be damaged
or written by someone else: every key a reader uses is checked here, with its type (a boolean
is not an integer), its range and, for the files a manifest names, that the name is a plain
path inside the store (no ``..``, not absolute: :func:`explorer.data.store.format.store_file` then
checks where it leads on disk). The manifest is parsed from at most :data:`MAX_MANIFEST_BYTES`
and may nest at most :data:`MAX_NESTING` levels.

A small validator written out here rather than ``jsonschema`` (installed only as altair's and
Ray's dependency, not one of ours): its messages name the key and say what it must be, in the
words of the rest of the store's errors; and ``jsonschema`` checks a document already parsed, so
the depth and size bounds would be ours to write anyway.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

FORMAT = "explorer-corpus-store"
"""The ``format`` every manifest names."""

STORED_DTYPES = ("float32", "float16")
"""The dtypes a store's vectors may have."""

MAX_MANIFEST_BYTES = 4 << 20
"""The largest ``manifest.json`` read. A million-row store's manifest is 0.44 MB at the
smallest default shard (256 rows), 3.4 MB with ``--shard-rows 32`` (measured: the manifest
written by :func:`~explorer.data.store.format.write_manifest`, one entry a shard)."""

MAX_NESTING = 16
"""How deep a manifest may nest (objects and arrays): its own keys go 4 deep."""

MAX_INT = 2**62
"""The largest integer a manifest may hold (row counts and sizes fit; NumPy shapes stay int64)."""

MAX_LAYERS = 256
"""The most layers a store's model may have (BERT-family models have 2 to 48): a reader sizes
its per-layer blocks by the model's layer count, which no stored file bounds."""

Check = Callable[[Any], None]
"""A checker: ``check(value)`` raises :class:`Invalid` when ``value`` does not fit."""


class Outside(Exception):
    """A file name that leads outside the store (``..``, an absolute path): never repeated in
    a message, which names the store instead."""


class Invalid(Exception):
    """A value that does not fit the schema: what is wrong (``must be an object, not a
    string``) and where (``str()`` starts with the key, e.g. ``shards[3].rows``, which the
    containers add on the way out: nothing is formatted for the values that fit)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path: list[str] = []

    def at(self, part: str) -> Invalid:
        """This error, found inside ``part`` (a key, or ``[index]``)."""
        self.path.insert(0, part)
        return self

    def __str__(self) -> str:
        key = "".join(p if p.startswith("[") else f".{p}" for p in self.path).lstrip(".")
        return f"{key} {self.problem}" if key else self.problem


def _wrong(expected: str, value: Any) -> Invalid:
    return Invalid(f"must be {expected}, not {_describe(value)}")


def _describe(value: Any) -> str:
    """``value`` in words, never its text (a path or a string could be anything)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) <= MAX_INT else "a larger integer"
    kinds = {float: "a number", str: "a string", list: "an array", dict: "an object"}
    return kinds.get(type(value), type(value).__name__)


def integer(minimum: int = 0, maximum: int = MAX_INT) -> Check:
    """An integer (not a boolean) from ``minimum`` to ``maximum`` (within ``MAX_INT``)."""
    expected = f"an integer of at least {minimum:,}"
    if maximum < MAX_INT:
        expected = f"an integer from {minimum:,} to {maximum:,}"

    def check(value: Any) -> None:
        if type(value) is not int or not minimum <= value <= maximum:
            raise _wrong(expected, value)

    return check


def number(value: Any) -> None:
    """A number (an integer or a float, not a boolean)."""
    if type(value) not in (int, float):
        raise _wrong("a number", value)


def boolean(value: Any) -> None:
    """``true`` or ``false``."""
    if type(value) is not bool:
        raise _wrong("true or false", value)


def text(choices: tuple[str, ...] | None = None) -> Check:
    """A string; with ``choices``, one of them."""

    def check(value: Any) -> None:
        if type(value) is not str:
            raise _wrong("a string", value)
        if choices is not None and value not in choices:
            raise _wrong(f"one of {', '.join(choices)}", value)

    return check


def relative_path(value: Any) -> None:
    """A file's path inside the store: a non-empty string, relative, with no ``..`` part
    (:class:`Outside` otherwise)."""
    if type(value) is not str or not value or "\0" in value:
        raise _wrong("a path inside the store", value)
    if value.startswith(("/", "~")) or ".." in value.split("/"):
        raise Outside


def optional(check: Check) -> Check:
    """``null`` or what ``check`` accepts."""

    def optional_check(value: Any) -> None:
        if value is not None:
            check(value)

    return optional_check


def either(*checks: Check, expected: str) -> Check:
    """What one of ``checks`` accepts (``expected`` says what in words)."""

    def check(value: Any) -> None:
        for one in checks:
            try:
                one(value)
                return
            except Invalid:
                continue
        raise _wrong(expected, value)

    return check


def array(item: Check, min_items: int = 0) -> Check:
    """An array of at least ``min_items`` items, each accepted by ``item``."""

    def check(value: Any) -> None:
        if type(value) is not list:
            raise _wrong("an array", value)
        if len(value) < min_items:
            raise _wrong(f"an array of at least {min_items} item(s)", value)
        for index, one in enumerate(value):
            try:
                item(one)
            except Invalid as error:
                raise error.at(f"[{index}]") from None

    return check


def mapping(item: Check) -> Check:
    """An object whose every value ``item`` accepts (keys are strings in JSON)."""

    def check(value: Any) -> None:
        if type(value) is not dict:
            raise _wrong("an object", value)
        for name, one in value.items():
            try:
                item(one)
            except Invalid as error:
                raise error.at(name) from None

    return check


def record(required: dict[str, Check], optional_keys: dict[str, Check] | None = None) -> Check:
    """An object with every key of ``required`` and maybe those of ``optional_keys``, each
    accepted by its checker when present (wrap it in :func:`optional` to allow ``null``).
    Other keys are left alone: a later writer of the same format version may add some."""
    fields = [(name, one, True) for name, one in required.items()]
    fields += [(name, one, False) for name, one in (optional_keys or {}).items()]

    def check(value: Any) -> None:
        if type(value) is not dict:
            raise _wrong("an object", value)
        missing = [name for name in required if name not in value]
        if missing:
            raise Invalid(f"lacks {', '.join(missing)}")
        for name, one, needed in fields:
            if needed or name in value:
                try:
                    one(value[name])
                except Invalid as error:
                    raise error.at(name) from None

    return check


def nesting(value: Any) -> int:
    """How deep ``value`` (parsed JSON) nests, counted level by level without recursion (1 for
    ``{}``; counting stops one level past :data:`MAX_NESTING`)."""
    level, depth = [value], 0
    while depth <= MAX_NESTING:
        level = [node for node in level if type(node) in (dict, list)]
        if not level:
            break
        depth += 1
        level = [
            child for node in level for child in (node.values() if type(node) is dict else node)
        ]
    return depth


def parse(data: bytes) -> Any:
    """``data`` (at most :data:`MAX_MANIFEST_BYTES`) parsed as UTF-8 JSON; ``ValueError``
    saying why when it is not JSON or nests deeper than :data:`MAX_NESTING`."""
    if len(data) > MAX_MANIFEST_BYTES:
        raise ValueError(f"is larger than {MAX_MANIFEST_BYTES >> 20} MB")
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("is not valid JSON: not UTF-8 text") from None
    except RecursionError:
        # the C parser counts its own depth against the interpreter's recursion limit
        raise ValueError(f"nests deeper than {MAX_NESTING} levels") from None
    except ValueError as error:  # JSONDecodeError, or an integer too long to convert
        raise ValueError(f"is not valid JSON: {error}") from None
    if nesting(value) > MAX_NESTING:
        raise ValueError(f"nests deeper than {MAX_NESTING} levels")
    return value


def _manifest_schema() -> Check:
    count = integer(0)
    positive = integer(1)
    name = text()
    layers = either(integer(-MAX_INT), text(), expected="a layer index or a layer strategy")
    return record(
        {
            "format": text((FORMAT,)),
            "format_version": positive,
            "model": record(
                {"name": name, "fingerprint": name, "model_type": name,
                 "num_layers": integer(1, MAX_LAYERS), "hidden_size": positive}
            ),
            "tokenizer": record({"max_length": positive, "lowercase": boolean}),
            "input": record(
                {"name": name, "format": name, "text_column": name,
                 "label_column": optional(name), "columns": array(name)},
                {"size": count, "mtime_ns": integer(-MAX_INT)},
            ),
            "poolings": array(name, min_items=1),
            "layers": array(count, min_items=1),
            "dtype": text(STORED_DTYPES),
            "precision": name,
            "exclude_special": boolean,
            "limit": optional(positive),
            "shard_rows": positive,
            "rows": count,
            "shards": array(
                record({"dir": relative_path, "rows": count}, {"files": array(relative_path),
                       "engine": name})
            ),
            "complete": boolean,
            "created": name,
        },
        {
            "skipped": count,
            "vectors": mapping(mapping(relative_path)),
            "projections": array(
                record(
                    {"method": name, "pooling": name, "layers": layers, "file": relative_path,
                     "points": count, "of_rows": count},
                    {"rows_file": optional(relative_path), "trustworthiness": optional(number),
                     "notes": array(name), "random_state": optional(integer(0)),
                     "created": name,
                     "choice": record({"pooling": name, "layers": layers},
                                      {"subwords": name, "post": name})},
                )
            ),
            "finished": name,
            "updated": name,
        },
    )  # fmt: skip


def check_manifest(manifest: Any) -> None:
    """Raise ``ValueError`` saying which key is wrong and why when ``manifest`` (parsed JSON)
    does not fit the store's schema (types, ranges; layers from 0 to the model's layer count),
    :class:`Outside` when it names a file outside the store."""
    try:
        _manifest_schema()(manifest)
    except Invalid as error:
        raise ValueError(str(error)) from None
    top = manifest["model"]["num_layers"]
    if any(layer > top for layer in manifest["layers"]):
        raise ValueError(f"layers must be from 0 to {top} (model.num_layers)")
