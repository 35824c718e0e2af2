"""AppTest of the Attention page: the bundled model (no lens) and a tiny masked-LM model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app.rendered import plain


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _keys(at) -> set[str]:
    return {c.key for c in at.get("plotly_chart")}


def _chart(at, key: str) -> dict:
    return json.loads(next(c for c in at.get("plotly_chart") if c.key == key).proto.spec)


def _texts(at) -> str:
    parts = [m.value for m in (*at.markdown, *at.info, *at.warning, *at.error)]
    return "\n".join(plain(p) for p in parts)


@pytest.mark.slow
def test_bundled_model_draws_the_grid_and_says_there_is_no_lens(page):
    at = page("attention")
    _ok(at)
    assert not at.error
    assert {"attention.grid", "attention.big", "attention.lines", "attention.compare"} <= _keys(at)
    assert not any(k.startswith("attention.lens") for k in _keys(at))
    texts = _texts(at)
    assert "has no masked-language-model head" in texts and "bert-base-uncased" in texts
    stats = next(d for d in at.dataframe if "on [SEP]" in d.value.columns).value
    assert len(stats) == 6 * 12
    # The bundled model's heads rest on [CLS] more than on [SEP], and the sentence says so.
    most = "[CLS]" if stats["on [CLS]"].mean() > stats["on [SEP]"].mean() else "[SEP]"
    assert f"of all attention lands on `{most}`" in texts
    table = next(d for d in at.dataframe if "on [SEP]" in d.value.columns)
    formats = json.loads(table.proto.columns)
    # Every share with three decimals (0.100, not 0.1 beside 0.121).
    assert all(formats[c]["type_config"]["format"] == "%.3f" for c in stats.columns[2:])
    assert "of the raw attention goes to `" in texts
    assert "attn_implementation" in at.code[0].value

    grid = _chart(at, "attention.grid")
    at.selectbox(key="attention.layer").set_value(3).run()
    _ok(at)
    assert "Layer 3, head 1" in _chart(at, "attention.big")["layout"]["title"]["text"]
    assert _chart(at, "attention.grid") == grid
    at.selectbox(key="attention.focus").set_value(2).run()
    _ok(at)
    at.slider(key="attention.floor").set_value(0.5).run()
    _ok(at)
    shown = next(d for d in at.dataframe if "on [SEP]" in d.value.columns).value
    assert (shown["on [SEP]"] >= 0.5).all()


@pytest.mark.slow
def test_pair_long_and_empty_inputs(page):
    at = page("attention")
    at.checkbox(key="attention.pair_on").check().run()
    _ok(at)
    lines = _chart(at, "attention.lines")
    assert any(t.get("line", {}).get("color") == "#ea580c" for t in lines["data"])
    at.text_area(key="attention.text").input("bank " * 700).run()
    _ok(at)
    assert any("only the" in plain(w.value) and "512 tokens" in plain(w.value) for w in at.warning)
    at.text_area(key="attention.text").input("   ").run()
    _ok(at)
    assert at.error


@pytest.mark.slow
def test_masked_lm_model_shows_the_lens(page, masked_lm_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_MODELS", masked_lm_path)
    at = page("attention")
    at.selectbox(key="model").set_value(f"{Path(masked_lm_path).name} (local)").run()
    _ok(at)
    assert "attention.lens0" in _keys(at)
    assert "has no masked-language-model head" not in _texts(at)
    assert "Mask 1" in _texts(at)
    at.text_area(key="attention.masked").input("The [MASK] sat on the [MASK].").run()
    _ok(at)
    assert {"attention.lens0", "attention.lens1"} <= _keys(at)
    at.text_area(key="attention.masked").input("No mask at all.").run()
    _ok(at)
    assert any("no [MASK]" in plain(e.value) for e in at.error)


@pytest.mark.slow
def test_a_session_keeps_no_analysis_the_cache_let_go(page):
    """Memory: once the shared cache drops an input's analysis, the session that showed it
    holds none either (a page lambda given to a selectbox kept the page's namespace, with its
    75 MB of attention weights at 512 tokens, for the session's life)."""
    import gc

    from explorer.ui import attention_heads

    at = page("attention")
    at.text_area(key="attention.text").set_value("The bank by the river bank. " * 20).run()
    _ok(at)
    attention_heads.MEMO.clear()
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, attention_heads.Analysis)]
    assert alive == [], f"{len(alive)} analyses outlive the cache while the session is open"
    assert at.selectbox(key="attention.focus").options[0] == "every token"


def _head_tables(at) -> list:
    """The static tables of head statistics (presentation mode), titled as a reader sees them."""
    frames = [t.value.rename(columns=plain) for t in at.table]
    return [frame for frame in frames if "on [SEP]" in frame.columns]


@pytest.mark.slow
def test_presentation_mode_lists_the_top_heads_and_folds_the_rest(fresh_app):
    # A projector showed all 72 heads (144 for BERT-base) over several screens: presentation
    # mode lists the top of the table's sort and says where the others are.
    from explorer.ui.attention_heads._heads import PRESENT_HEADS
    from explorer.ui.presentation import KEY

    at = fresh_app
    at.query_params[KEY] = "true"
    at.run()
    at.switch_page("pages/attention.py").run()
    _ok(at)
    top, every = _head_tables(at)
    statistic = at.selectbox(key="attention.filter").value
    assert len(top) == PRESENT_HEADS and len(every) == 6 * 12
    assert every[statistic].is_monotonic_decreasing
    assert top.equals(every.head(PRESENT_HEADS))
    (folded,) = [e for e in at.expander if e.label == "All 72 heads"]
    assert not folded.proto.expanded
    said = plain(next(c.value for c in at.caption if "The top" in plain(c.value)))
    assert f"top {PRESENT_HEADS} of all 72 heads, by {statistic}" in said
    assert f"the other {72 - PRESENT_HEADS} are under 'All 72 heads'" in said

    floor = float(every[statistic].iloc[19])
    at.slider(key="attention.floor").set_value(floor).run()
    _ok(at)
    kept = int((every[statistic] >= floor).sum())
    top, every_kept = _head_tables(at)
    assert len(top) == PRESENT_HEADS and len(every_kept) == kept > PRESENT_HEADS
    said = plain(next(c.value for c in at.caption if "The top" in plain(c.value)))
    assert f"of the {kept} heads (of 72) the filter keeps" in said

    at.slider(key="attention.floor").set_value(float(every[statistic].iloc[3])).run()
    _ok(at)  # four heads pass the filter: all of them listed, nothing folded
    (few,) = _head_tables(at)
    assert len(few) == (every[statistic] >= every[statistic].iloc[3]).sum() < PRESENT_HEADS
    assert not [e for e in at.expander if e.label.endswith(" heads")]


def test_the_code_caption_names_the_models_own_special_tokens(roberta_page):
    # Under all-mpnet-base-v2 the snippet's caption said "shares on [SEP]/[CLS]".
    at = roberta_page("attention")
    _ok(at)
    said = next(plain(c.value) for c in at.caption if "rollout and norm-weighted" in c.value)
    assert "shares on </s>/<s>," in said and "[" not in said
