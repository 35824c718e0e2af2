"""AppTest of the Attention page's head ablation: the section renders, switching heads off
changes its numbers, the ranking runs; the bundled model (no lens) and a tiny masked-LM model."""

from __future__ import annotations

from pathlib import Path

from tests.app.rendered import plain


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _table(at):
    return next(d for d in at.dataframe if "heads off" in d.value.columns).value


def _texts(at) -> str:
    return "\n".join(plain(m.value) for m in (*at.markdown, *at.info, *at.caption))


def test_switching_heads_off_changes_the_numbers(page):
    at = page("attention")
    _ok(at)
    table = _table(at)
    assert (table["change"] == 0).all()  # nothing off yet: the same model
    assert "no masked-LM head" in _texts(at) and "Choose heads to switch off" in _texts(at)
    at.multiselect(key="attention.ablate").set_value(["6.3"]).run()
    _ok(at)
    table = _table(at)
    assert (table["change"] != 0).all()
    assert "With 1 of 72 heads off (layer 6 head 3)" in _texts(at)
    assert "Michel, Levy and Neubig (2019)" in _texts(at)
    assert any("OFF = {6: [3]}" in c.value for c in at.code)
    at.multiselect(key="attention.ablate_all").set_value([1]).run()
    _ok(at)
    assert "With 13 of 72 heads off" in _texts(at)
    assert not at.error


def test_masked_lm_model_compares_the_guess_and_ranks_heads(page, masked_lm_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_MODELS", masked_lm_path)
    at = page("attention")
    at.selectbox(key="model").set_value(f"{Path(masked_lm_path).name} (local)").run()
    _ok(at)
    assert any(m.startswith("Probability of the guess") for m in _table(at)["measure"])
    at.multiselect(key="attention.ablate_all").set_value([1, 2, 3]).run()
    _ok(at)
    assert "The lens" in _texts(at)
    at.selectbox(key="attention.rank_by").set_value("guess").run()
    at.toggle(key="attention.rank").set_value(True).run()
    _ok(at)
    assert "attention.rank_map" in {c.key for c in at.get("plotly_chart")}
    assert "changes the probability of the masked-LM guess most" in _texts(at)
