"""AppTest of the Tokens page's vocabulary map: off by default, then the map, both colourings
and a piece's static neighbours; a piece not in the vocabulary is said so."""

from __future__ import annotations


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def test_vocabulary_map_and_neighbours(page):
    at = page("tokens")
    _ok(at)
    assert "tokens.vocab" not in {c.key for c in at.get("plotly_chart")}
    at.toggle(key="tokens.vocab_map").set_value(True).run()
    _ok(at)
    assert "tokens.vocab" in {c.key for c in at.get("plotly_chart")}
    near = next(d for d in at.dataframe if "cosine" in d.value.columns).value
    assert len(near) == 10 and "bank" not in set(near["piece"])
    context = next(d for d in at.dataframe if "contextual" in d.value.columns).value
    assert len(context) > 0 and set(context.columns) >= {"token", "contextual", "static"}
    at.radio(key="tokens.vocab_colour").set_value("id").run()
    _ok(at)
    at.text_input(key="tokens.vocab_piece").input("notapiece!!").run()
    _ok(at)
    assert any("not a piece" in e.value for e in at.error)
