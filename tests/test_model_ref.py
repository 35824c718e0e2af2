"""explorer.model.ref: one value names a model (hub id or folder, trained or random weights),
read from text in one place, shown to people, written into snippets and loaded through the
model cache."""

from __future__ import annotations

import pytest

from explorer.model.cache import ModelCache
from explorer.model.loading import load_ref
from explorer.model.ref import RANDOM_PREFIX, ModelRef


@pytest.mark.parametrize(
    ("text", "source", "random"),
    [
        ("bert-base-uncased", "bert-base-uncased", False),
        ("  org/model-name ", "org/model-name", False),
        ("/srv/models/base", "/srv/models/base", False),
        ("random-weights:bert-base-uncased", "bert-base-uncased", True),  # the old link form
        ("random-weights:/srv/models/base", "/srv/models/base", True),
        (" random-weights: org/model ", "org/model", True),
    ],
)
def test_parse_reads_every_form_and_link_writes_it_back(text, source, random):
    ref = ModelRef.parse(text)
    assert (ref.source, ref.random) == (source, random)
    assert ModelRef.parse(ref.link) == ref
    assert ref.link == (RANDOM_PREFIX + source if random else source)
    assert str(ref) == ref.link


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("", "''"),
        ("   ", "'   '"),
        ("random-weights:", "'random-weights:'"),
        ("random-weights:random-weights:bert", "'random-weights:random-weights:bert'"),
        ("https://evil.example/x", "'https://evil.example/x'"),
        ("random-weights:https://evil.example/x", "'https://evil.example/x'"),
        ("bert; rm -rf /", "'bert; rm -rf /'"),
        (None, "None"),
    ],
)
def test_unknown_or_malformed_refs_are_a_value_error_naming_them(text, named):
    with pytest.raises(ValueError) as error:
        ModelRef.parse(text)
    assert named in str(error.value)


def test_a_ref_made_directly_needs_a_source_without_spaces():
    with pytest.raises(ValueError, match="needs a hub id or a folder"):
        ModelRef("")
    with pytest.raises(ValueError, match="spaces around it"):
        ModelRef(" bert ")


def test_refs_are_frozen_hashable_values():
    a, b = ModelRef("bert-base-uncased"), ModelRef.parse("bert-base-uncased")
    twin = a.random_twin()
    assert a == b and hash(a) == hash(b) and len({a, b, twin}) == 2
    assert twin != a and twin.trained() == a and a.trained() is not None
    assert {(a, None): 1}[(b, None)] == 1  # a cache key
    with pytest.raises(AttributeError):
        a.source = "other"  # type: ignore[misc]


def test_label_for_people_names_random_weights():
    labels = {"/srv/models/base": "base (local)"}.get
    ref = ModelRef("/srv/models/base")
    assert ref.label() == "/srv/models/base"
    assert ref.label(labels) == "base (local)"
    assert ref.random_twin().label(labels) == "base (local) with random weights"


def test_load_goes_through_the_cache_and_random_weights_load_the_twin(tiny_bert_path):
    cache = ModelCache(max_bytes=2**30)
    ref = ModelRef.parse(tiny_bert_path)
    waited: list[ModelRef] = []

    def waiting(which):
        import contextlib

        waited.append(which)
        return contextlib.nullcontext()

    model = load_ref(ref, cache, waiting=waiting)
    assert model.ref == ref and load_ref(ref, cache, waiting=waiting) is model
    assert waited == [ref]  # the second load was a hit: no spinner
    twin = load_ref(ModelRef.parse(RANDOM_PREFIX + tiny_bert_path), cache, waiting=waiting)
    assert twin.ref == ref.random_twin() and twin is not model
    assert waited == [ref, ref.random_twin()]
    assert (ref.random_twin(), None) in cache and (ref, None) in cache
    # the same architecture, its own weights (the tiny model was itself saved from seed 0,
    # which random_weights uses too: their values agree here, their tensors are separate)
    assert twin.num_layers == model.num_layers and twin.hidden_size == model.hidden_size
    assert twin.encoder is not model.encoder and twin.masked_lm is None
    assert twin.hidden_states("a bank").shape == model.hidden_states("a bank").shape


def test_random_weights_that_cannot_fit_beside_their_model_are_refused(tiny_bert_path):
    ref = ModelRef(tiny_bert_path)
    model = load_ref(ref, ModelCache(max_bytes=2**30))
    cache = ModelCache(max_bytes=int(model.weight_bytes * 1.5))
    with pytest.raises(ValueError, match="second copy of this model"):
        load_ref(ref.random_twin(), cache)
