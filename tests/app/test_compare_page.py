"""AppTest of the Compare models page: opens with model A's random weights as model B, changes
model B to a model with its own tokenizer, refuses a pair over the server's bytes of models."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

from tests.app.rendered import plain


def _ok(at):
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _cka(at) -> np.ndarray:
    """The cross-CKA heatmap's values (plotly JSON: a list, or base64 with dtype and shape)."""
    (chart,) = [c for c in at.get("plotly_chart") if c.key == "compare.cka"]
    z = json.loads(chart.proto.spec)["data"][0]["z"]
    if isinstance(z, dict):
        shape = tuple(int(n) for n in str(z["shape"]).split(","))
        return np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(shape)
    return np.array(z, dtype=float)


def _agreement(at) -> np.ndarray:
    """The maps' colours: each text's share of neighbours both models agree on."""
    (chart,) = [c for c in at.get("plotly_chart") if c.key == "compare.maps"]
    colour = json.loads(chart.proto.spec)["data"][0]["marker"]["color"]
    if isinstance(colour, dict):
        return np.frombuffer(base64.b64decode(colour["bdata"]), dtype=colour["dtype"])
    return np.array(colour, dtype=float)


def _values(data) -> np.ndarray:
    """A plotly JSON array: a list, or base64 with its dtype."""
    if isinstance(data, dict):
        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"])
    return np.array(data, dtype=float)


def _curves(at) -> list[dict]:
    """The traces of the curves over relative depth."""
    (chart,) = [c for c in at.get("plotly_chart") if c.key == "compare.curves"]
    return json.loads(chart.proto.spec)["data"]


def _name(html: str) -> str:
    return html.split('data-name="', 1)[1].split('"', 1)[0]


def _texts(at) -> str:
    return " ".join(plain(e.value) for e in [*at.info, *at.caption, *at.markdown])


def test_opens_against_random_weights_then_changes_model_b(page, other_tokenizer_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_MODELS", other_tokenizer_path)
    at = page("compare")
    _ok(at)
    assert at.selectbox(key="compare.model_b").value == "random weights"
    random = _cka(at)
    assert random.shape == (7, 7)
    assert "Model B uses model A's tokenizer" in _texts(at)
    table = at.dataframe[0].value
    assert table["words"].iloc[0] == table["words"].iloc[1]  # the same tokenizer
    best = next(d for d in at.dataframe if "B's best layer" in d.value.columns)
    # every CKA with three decimals (0.400 beside 0.383, not 0.4)
    assert json.loads(best.proto.columns)["CKA"]["type_config"]["format"] == "%.3f"
    code = [c.value for c in at.code]
    assert any("AutoModel.from_config" in c for c in code)
    random_agreement = _agreement(at)
    assert len(random_agreement) == 240 and np.all(
        (0 <= random_agreement) & (random_agreement <= 1)
    )
    tables = {_name(h.proto.body): h.proto.body for h in at.html if "data-name" in h.proto.body}
    assert tables["compare.disagree"].count("<tr>") == 1 + 5  # the head and 5 texts
    assert tables["compare.search"].count("<tr>") == 1 + 5
    assert tables["compare.followed"].count("<tr>") == 1 + 10  # its 10 neighbours, A and B
    assert "the text the models disagree about most" in _texts(at)
    traces = _curves(at)
    assert len(traces) == 8 + 1  # four measures, A and B each, and the probe's chance line
    assert traces[-1]["name"].startswith("always the most common topic")
    assert f"dotted grey, {traces[-1]['y'][0]:.2f}: always guessing" in _texts(at)
    assert [t["line"]["dash"] for t in traces[:2]] == ["solid", "dash"]
    assert "The sense gap peaks for all-MiniLM-L6-v2" in _texts(at)
    assert any("depth_curves(model_a, model_b" in c and "random_weights" in c for c in code)

    at.selectbox(key="compare.model_b").set_value(
        f"{Path(other_tokenizer_path).name} (local)"
    ).run()
    _ok(at)
    other = _cka(at)
    assert other.shape == (7, 4)  # the other model has 3 layers
    table = at.dataframe[0].value
    assert table["words"].iloc[0] != table["words"].iloc[1] or (
        table["tokens"].iloc[0] != table["tokens"].iloc[1]
    )
    text = _texts(at)
    assert "splits" in text and "Tokens per word: model A" in text
    assert "cut" in text and "words differently" in text  # punctuation kept or split off
    assert not any("AutoModel.from_config" in c.value for c in at.code)
    assert not np.array_equal(_agreement(at), random_agreement)
    b_layers = [_values(t["customdata"]) for t in _curves(at)[1::2]]
    assert (
        max(layers.max() for layers in b_layers) == 3
    )  # B's 3 layers on the same 0-to-1 axis as A's 6

    at.selectbox(key="compare.model_b").set_value("all-MiniLM-L6-v2 (bundled)").run()
    _ok(at)
    itself = _cka(at)  # model A against itself: ones on the diagonal
    assert np.allclose(np.diag(itself), 1.0, atol=1e-4) and not np.allclose(itself, random)
    assert np.all(_agreement(at) == 1.0)  # the same vectors: the same neighbours
    assert "The two models share 5 of their top 5 results" in _texts(at)


def test_a_pair_over_the_model_memory_is_refused_saying_what_fits(page, monkeypatch):
    monkeypatch.setenv("EXPLORER_MODEL_MEMORY", "150MB")  # the bundled model's 87 MB, not twice
    at = page("compare")
    assert not at.exception, [e.message for e in at.exception]
    errors = [plain(e.value) for e in at.error]
    assert any("more than this server keeps loaded (150 MB)" in e for e in errors), errors
    assert not at.get("plotly_chart")


def test_model_b_comes_from_the_link(fresh_app, other_tokenizer_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_MODELS", other_tokenizer_path)
    fresh_app.query_params["compare.model_b"] = f"{Path(other_tokenizer_path).name} (local)"
    fresh_app.run()
    fresh_app.switch_page("pages/compare.py").run()
    _ok(fresh_app)
    assert _cka(fresh_app).shape == (7, 4)


def test_the_pooling_menu_names_the_first_token_both_models_share(
    fresh_app, tiny_roberta_path, monkeypatch
):
    # One menu pools both models: it read "[CLS] token" beside a model whose first token is <s>.
    monkeypatch.setenv("EXPLORER_MODELS", tiny_roberta_path)
    fresh_app.query_params["compare.model_b"] = f"{Path(tiny_roberta_path).name} (local)"
    fresh_app.run()
    fresh_app.switch_page("pages/compare.py").run()
    _ok(fresh_app)
    options = fresh_app.selectbox(key="compare.pooling").options
    assert "First token" in options and not any("[CLS]" in o or "<s>" in o for o in options)
    fresh_app.selectbox(key="compare.model_b").set_value("random weights").run()
    _ok(fresh_app)
    assert "[CLS] token" in fresh_app.selectbox(key="compare.pooling").options  # A's, B's too
