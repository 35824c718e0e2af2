"""The masked-LM lens (explorer.attention): predictions and the per-layer lens on a tiny
random BertForMaskedLM."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

import explorer
from explorer.attention import _lens as lens
from explorer.model.loading import bundled_model_path

TEXT = "The robber took the money from the [MASK] and went [MASK] on the river."


@pytest.fixture(scope="module")
def lm(masked_lm_path):
    return lens.load_masked_lm(masked_lm_path)


def test_last_layer_equals_the_models_own_prediction(lm):
    result = lens.layer_predictions(lm, TEXT, k=5)
    encoding = lm.tokenizer(TEXT, return_tensors="pt")
    with torch.inference_mode():
        own = lm.model(**encoding).logits[0, result.positions].softmax(-1)
    probabilities, ids = own.topk(5, dim=-1)
    np.testing.assert_allclose(result.probabilities[-1], probabilities.numpy(), atol=1e-5)
    assert result.top_tokens[-1] == [lm.tokenizer.convert_ids_to_tokens(r) for r in ids.tolist()]


def test_layer_predictions_shapes_and_order(lm):
    result = lens.layer_predictions(lm, TEXT, k=5)
    assert result.probabilities.shape == (4, 2, 5)
    assert len(result.top_tokens) == 4 and all(len(t) == 2 for t in result.top_tokens)
    assert all(result.tokens[p] == "[MASK]" for p in result.positions)
    assert np.all(np.diff(result.probabilities, axis=-1) <= 0)
    assert np.all(result.probabilities.sum(-1) <= 1 + 1e-6)
    assert not result.truncated


def test_first_on_top_is_the_first_layer_with_the_final_guess():
    top = [[["a", "x"]], [["b", "a"]], [["a", "b"]], [["a", "c"]]]  # 4 layers, 1 mask
    found = lens.Lens(["[MASK]"], [0], top, np.zeros((4, 1, 2), np.float32), False)
    assert found.first_on_top(0) == 0
    found = lens.Lens(["[MASK]"], [0], top[1:], np.zeros((3, 1, 2), np.float32), False)
    assert found.first_on_top(0) == 1


def test_predict_masks_matches_the_last_layer(lm):
    predictions = lens.predict_masks(lm, TEXT, k=3)
    result = lens.layer_predictions(lm, TEXT, k=3)
    assert len(predictions) == 2
    for mask, pairs in enumerate(predictions):
        assert [t for t, _ in pairs] == result.top_tokens[-1][mask]
        np.testing.assert_allclose([p for _, p in pairs], result.probabilities[-1, mask])


def test_predict_masks_loads_from_a_source(masked_lm_path):
    assert len(lens.predict_masks(masked_lm_path, "A [MASK] day.", k=2)[0]) == 2


def test_no_mask_is_a_clear_error(lm):
    with pytest.raises(ValueError, match=r"no \[MASK\]"):
        lens.predict_masks(lm, "No mask here.")
    with pytest.raises(ValueError, match="MASK"):
        lens.predict_masks(lm, "   ")
    with pytest.raises(ValueError, match="k must be"):
        lens.layer_predictions(lm, TEXT, k=0)


def test_bundled_model_has_no_head_and_says_so_quickly():
    start = time.perf_counter()
    with pytest.raises(ValueError, match="has no masked-language-model head"):
        lens.load_masked_lm(str(bundled_model_path()))
    assert time.perf_counter() - start < 2


def test_head_weights_missing_is_an_error(tiny_bert_path, tmp_path):
    import json
    import shutil

    folder = tmp_path / "claims-mlm"
    shutil.copytree(tiny_bert_path, folder)
    config = json.loads((folder / "config.json").read_text())
    config["architectures"] = ["BertForMaskedLM"]
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="head weights"):
        lens.load_masked_lm(str(folder))


def test_unknown_model_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="configuration"):
        lens.load_masked_lm(str(tmp_path))


def test_long_input_is_truncated(lm):
    result = lens.layer_predictions(lm, "[MASK] " + "word " * 1000, k=2)
    assert result.truncated and len(result.tokens) == lm.max_length


def test_the_lens_and_the_pages_share_one_copy_of_the_weights(masked_lm_path):
    # Issue 24: the lens loaded a second full copy beside the encoder.
    model = explorer.load_model(masked_lm_path)
    lm = lens.masked_lm_of(model)
    assert lm.model is model.masked_lm and lm.model.base_model is model.encoder
    encoder = {p.data_ptr() for p in model.encoder.parameters()}
    head = {p.data_ptr() for p in lm.model.parameters()}
    assert encoder <= head  # every encoder tensor is the lens's own
    tied = lm.model.get_output_embeddings().weight
    assert tied.data_ptr() == model.encoder.get_input_embeddings().weight.data_ptr()
    alone = sum(p.numel() * p.element_size() for p in model.encoder.parameters())
    extra = model.weight_bytes - alone
    assert 0 < extra < 0.05 * alone  # the head's transform and bias, not a second model
    assert lens.predict_masks(lm, TEXT, k=3)
    # The pages' vectors come from the same module the lens runs.
    # (a sentence without "[MASK]": the pages read a typed "[MASK]" as text, the lens as its
    # mask; issue 32, finding 14)
    states = model.hidden_states("The bank was closed.")
    with torch.inference_mode():
        encoding = model.tokenizer("The bank was closed.", return_tensors="pt")
        again = lm.model(**encoding, output_hidden_states=True).hidden_states[-1][0]
    np.testing.assert_allclose(states[-1], again.numpy(), atol=1e-5)


def test_a_model_without_a_head_has_no_lens(bundled):
    assert bundled.masked_lm is None
    with pytest.raises(ValueError, match="has no masked-language-model head"):
        lens.masked_lm_of(bundled)


def test_the_lens_predicts_the_first_masks_only_and_counts_them_all(lm):
    # A 512-token text of a hundred masks kept every layer's logits of every mask at once
    # (BERT-large-sized: 311 MB, 20 s); the page asks for the first limits.MAX_LENS_MASKS.
    from explorer.server import limits

    text = " ".join(["the [MASK] of the river"] * 40)
    every = lens.layer_predictions(lm, text, k=3)
    first = lens.layer_predictions(lm, text, k=3, max_masks=5)
    assert every.masks_found == first.masks_found == 40 and len(every.positions) == 40
    assert first.positions == every.positions[:5]
    assert first.probabilities.shape == (lm.model.config.num_hidden_layers + 1, 5, 3)
    np.testing.assert_allclose(first.probabilities, every.probabilities[:, :5], atol=1e-5)
    assert [layer[:5] for layer in every.top_tokens] == first.top_tokens
    assert "has 40 masks; the lens predicts the first 20" in limits.lens_masks_note(40)
    assert limits.lens_masks_note(limits.MAX_LENS_MASKS) is None
    with pytest.raises(ValueError, match="max_masks must be a positive integer"):
        lens.layer_predictions(lm, text, max_masks=0)
