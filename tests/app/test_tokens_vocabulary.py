"""AppTest of the Tokens page's vocabulary map: off by default, then the map, both colourings
and a piece's static neighbours; a piece not in the vocabulary is said so. Issue 36.4: the
what-to-notice sentence quotes the tables on screen, and "Show code" holds the program."""

from __future__ import annotations

import re


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _notice(at) -> str:
    """The vocabulary map's what-to-notice sentence, unescaped."""
    shown = (i.value.replace("\\", "") for i in at.info)
    return next(text for text in shown if text.startswith("Of the "))


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
    notice = _notice(at)
    shared = [p for p in near["piece"] if p in set(context["token"])]
    expected = f"{len(shared)} of its 10" if shared else "none of its 10"
    assert expected in notice, notice
    assert f"{context['contextual'].iloc[0]:.3f} there" in notice
    assert re.search(r"continuations average [-+]\d\.\d\d", notice)
    code = next(c.value for c in at.code if "get_input_embeddings" in c.value)
    assert "piece = 'bank'" in code and "np.linalg.eigh" in code
    at.radio(key="tokens.vocab_colour").set_value("id").run()
    _ok(at)
    at.text_input(key="tokens.vocab_piece").input("notapiece!!").run()
    _ok(at)
    assert any("not a piece" in e.value for e in at.error)
    assert "Context adds" not in _notice(at)  # the map's sentence stays, without the piece
    at.text_input(key="tokens.vocab_piece").input("banks").run()
    _ok(at)
    notice = _notice(at)
    assert "does not hold banks" in notice and "nearest piece to banks" in notice
    assert any("piece = 'banks'" in c.value for c in at.code)
