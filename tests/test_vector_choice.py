"""explorer.VectorChoice: checked once when made, equal by value, and the one place its label,
its width and its snippet expression come from (each checked against the library's numbers)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import explorer
from explorer.choice import POSTPROCESSING, VectorChoice, vector_choice
from explorer.expressions import pooled_lines
from explorer.layers import LAYER_CHOICES, layer_choices
from explorer.pooling import POOLINGS
from explorer.subwords import SUBWORD_MODES

TEXTS = ["The bank raised its rates.", "We sat on the river bank.", "A short one."]


def test_it_is_on_the_face():
    assert explorer.VectorChoice is VectorChoice


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"pooling": "median"}, r"Unknown pooling 'median'; choose one of \('cls', 'mean'"),
        ({"layers": "middle"}, r"Unknown layer choice 'middle'; choose one of \('last'"),
        ({"layers": True}, "Unknown layer choice True"),
        ({"layers": 2.5}, "Unknown layer choice 2.5"),
        ({"subwords": "all"}, r"Unknown subword mode 'all'; choose one of \('first'"),
        ({"post": "whiten"}, r"Unknown post-processing 'whiten'; choose one of \('none'"),
    ],
)
def test_an_unknown_name_is_refused_when_made(changes, message):
    with pytest.raises(ValueError, match=message):
        VectorChoice(**changes)


def test_every_known_name_is_accepted():
    for pooling in POOLINGS:
        for layers in (*LAYER_CHOICES, 0, 3, -1):
            VectorChoice(pooling, layers)
    for subwords in SUBWORD_MODES:
        VectorChoice(subwords=subwords)
    for post in POSTPROCESSING:
        VectorChoice(post=post)


def test_frozen_hashable_and_equal_by_value():
    a = VectorChoice("mean_max", "concat_last4")
    b = VectorChoice(pooling="mean_max", layers="concat_last4", subwords="mean", post="none")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != VectorChoice("mean", "concat_last4")
    with pytest.raises(AttributeError):
        a.pooling = "cls"  # type: ignore[misc]
    # a NumPy layer number is the same choice as the int
    assert VectorChoice("mean", np.int64(2)) == VectorChoice("mean", 2)
    assert type(VectorChoice("mean", np.int64(2)).layers) is int


def test_a_layer_number_is_checked_against_the_model(tiny):
    choice = VectorChoice("mean", 9)  # made: the number's range is the model's
    with pytest.raises(ValueError, match="Layer 9 is out of range"):
        choice.dim(tiny)
    assert VectorChoice("mean", -1).indices(tiny.num_layers) == [tiny.num_layers]


def test_label_and_title_use_the_pages_words():
    choice = VectorChoice("mean", "mean_last4")
    assert choice.label == "mean pooling, mean of last four layers"
    assert choice.title == "mean pooling · Mean of last four layers"
    assert VectorChoice("cls", 0, post="abtt").label == (
        "cls pooling, embedding output (layer 0), post-processing: abtt"
    )


def test_dim_for_a_hidden_size():
    assert VectorChoice("mean", "last").dim(768) == 768
    assert VectorChoice("mean", "concat_last4").dim(768) == 4 * 768
    assert VectorChoice("mean_max", "last").dim(768) == 2 * 768
    assert VectorChoice("mean_max", "concat_last4").dim(384) == 8 * 384


def test_vector_choice_builds_one_value_from_either_form():
    choice = VectorChoice("max", "sum_all")
    assert vector_choice(choice) is choice
    assert vector_choice("max", "sum_all") == choice
    assert vector_choice() == VectorChoice()
    assert vector_choice(None, 2) == VectorChoice("mean", 2)
    with pytest.raises(ValueError, match="not both"):
        vector_choice(choice, "last")
    with pytest.raises(ValueError, match="Unknown pooling"):
        vector_choice("median")


@pytest.mark.parametrize("model_name", ["tiny", "bundled"])
def test_dim_matches_the_vectors(model_name, request):
    model = request.getfixturevalue(model_name)
    corpus = explorer.embed_corpus(model, TEXTS[:2])
    for pooling in POOLINGS:
        for layers in (*layer_choices(model.num_layers), 0, -2):
            choice = VectorChoice(pooling, layers)
            expected = explorer.sentence_embeddings(model, TEXTS[:2], pooling, layers).shape
            assert expected == (2, choice.dim(model)) == (2, choice.dim(model.hidden_size))
            assert corpus.sentence(pooling, layers).shape == expected


@pytest.mark.parametrize("pooling", POOLINGS)
@pytest.mark.parametrize("layers", ["last", "concat_last4", "sum_all", 1])
def test_expression_gives_the_library_numbers(tiny, pooling, layers):
    choice = VectorChoice(pooling, layers)
    expected = explorer.sentence_embeddings(tiny, TEXTS, pooling, layers)
    for row, text in enumerate(TEXTS):
        states = torch.from_numpy(np.asarray(tiny.hidden_states(text)))[:, None]
        names = {
            "hidden": states,
            "mask": torch.ones(states.shape[:3], dtype=torch.bool)[..., None],
            "torch": torch,
            "L": tiny.num_layers,
        }
        exec(pooled_lines([pooling], indent=""), names)  # noqa: S102
        vector = eval(choice.expression(), names).numpy()[0]  # noqa: S307
        np.testing.assert_allclose(vector, expected[row], rtol=1e-4, atol=1e-5)


# -- the store records it --------------------------------------------------------------------


@pytest.fixture(scope="module")
def projected(tiny, tmp_path_factory):
    """A small store with a saved PCA map under mean pooling and the sum of the last four."""
    from explorer.data.store.project import save_projection
    from tests.store_helpers import small_store

    store = small_store(tiny, tmp_path_factory.mktemp("choice"))
    entry = save_projection(store, "pca", VectorChoice("mean", "sum_last4"))
    return store, entry


def test_a_saved_map_records_its_choice(projected):
    from explorer.data.store.corpus import open_corpus, projection_choice

    store, entry = projected
    choice = VectorChoice("mean", "sum_last4")
    assert entry["choice"] == {"pooling": "mean", "layers": "sum_last4", "subwords": "mean",
                               "post": "none"}  # fmt: skip
    corpus = open_corpus(store)
    assert projection_choice(corpus.projections[0]) == choice
    assert corpus.projection("pca", choice) is not None
    with pytest.raises(ValueError, match="VectorChoice"):  # names are read at the edge only
        corpus.projection("pca", "mean")
    assert corpus.projection("pca", VectorChoice("mean", "last")) is None


def test_an_old_manifest_is_still_read(projected, tmp_path):
    """A manifest written before the choice record (pooling and layers only) finds its map."""
    import shutil

    from explorer.data.store.corpus import open_corpus
    from explorer.data.store.saved_maps import saved_map
    from tests.store_helpers import edit_manifest

    store = tmp_path / "old"
    shutil.copytree(projected[0], store)
    edit_manifest(store, lambda m: [entry.pop("choice") for entry in m["projections"]])
    corpus = open_corpus(store)
    assert "choice" not in corpus.projections[0]
    found = saved_map(corpus, "pca", VectorChoice("mean", "sum_last4"))
    assert found is not None and len(found.rows) == len(corpus)
    assert saved_map(corpus, "pca", VectorChoice("mean", "last")) is None


def test_a_saved_map_refuses_post_processing(projected):
    from explorer.data.store.project import save_projection

    with pytest.raises(ValueError, match="post-processing 'abtt' is not saved"):
        save_projection(projected[0], "pca", VectorChoice(post="abtt"))


def test_store_vectors_take_the_value(projected):
    from explorer.data.store.corpus import open_corpus

    corpus = open_corpus(projected[0])
    for choice in (VectorChoice("mean", "concat_last4"), VectorChoice("mean", 2)):
        vectors = corpus.sentence(choice)
        assert vectors.shape == (len(corpus), choice.dim(corpus.hidden_size))
        np.testing.assert_array_equal(vectors, corpus.sentence(choice.pooling, choice.layers))


def test_the_widget_helper_gives_values():
    from explorer.ui.widgets import vector_choice as chosen

    assert chosen("cls", "sum_all", post="center") == VectorChoice("cls", "sum_all", post="center")
    assert chosen(["cls", "max"], 2) == (VectorChoice("cls", 2), VectorChoice("max", 2))
    assert chosen([], "last") == ()


def test_post_name_is_what_a_sentence_says_of_the_post_processing():
    # issue 34: the words live beside the modes (choice.py), so a notice takes the choice
    assert VectorChoice().post_name == ""
    assert VectorChoice(post="center").post_name == "mean-centred"
    assert {VectorChoice(post=p).post_name for p in POSTPROCESSING} >= {"standardized"}
