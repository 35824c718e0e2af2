"""AppTest of the Home page and of the sidebar model picker seen from it."""

from __future__ import annotations

from explorer.model import DEFAULT_MODEL
from explorer.model.ref import ModelRef
from explorer.server.settings import BUNDLED_LABEL
from explorer.ui.model_in_use import MODEL_KEY, PICKER_KEY
from tests.app.rendered import plain

PAGES = ("Tokens", "Layers", "Word in context", "Projections")


def _other_label(at) -> str:
    options = at.selectbox(key=PICKER_KEY).options
    return next(option for option in options if option.startswith("Other"))


def test_home_renders_a_card_and_link_for_every_page(page):
    at = page("home")
    assert at.title[0].value == "Contextual Embedding Explorer"
    links = {link.value: link.proto.page for link in at.page_link}
    for title in PAGES:
        assert f"Open {title}" in links, links
    assert links["Open Tokens"] == "tokens"
    headings = " ".join(m.value for m in at.markdown)
    for title in PAGES:
        assert f"#### {title}" in headings
    assert "bank" in headings  # the river bank / bank vault example
    assert any(BUNDLED_LABEL in plain(info.value) for info in at.info)  # the model notice


def test_model_that_cannot_load_shows_a_sidebar_error_and_keeps_the_bundled_one(page):
    at = page("home")
    at.selectbox(key=PICKER_KEY).select("bert-base-uncased").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.error, "expected an error in the sidebar"
    assert "bert-base-uncased" in at.sidebar.error[0].value.replace("\\", "")
    # The failed model never becomes the current one: the bundled model stays in use.
    chosen = at.session_state[MODEL_KEY] if MODEL_KEY in at.session_state else None
    assert chosen in (None, ModelRef(DEFAULT_MODEL))
    captions = [plain(c.value) for c in at.sidebar.caption]
    assert any(c.startswith("In use: all-MiniLM-L6-v2") for c in captions), captions
    assert any(c.startswith("Still using all-MiniLM-L6-v2") for c in captions), captions
    # The picker is reset to the model in use.
    assert at.selectbox(key=PICKER_KEY).value == BUNDLED_LABEL
    assert at.title[0].value == "Contextual Embedding Explorer"
    assert len(at.page_link) >= len(PAGES)


def test_model_picker_rejects_a_url(page, monkeypatch):
    monkeypatch.setenv("EXPLORER_MODELS", "*")  # free entry, as on a single-user laptop
    at = page("home")
    at.selectbox(key=PICKER_KEY).select(_other_label(at)).run()
    assert not at.exception, [e.message for e in at.exception]
    at.text_input(key="model.other").input("https://evil.example/x").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.error
    assert "URL" in at.sidebar.error[0].value
    assert at.title[0].value == "Contextual Embedding Explorer"


def test_tokens_page_still_works_after_a_failed_model_choice(page):
    at = page("home")
    at.selectbox(key=PICKER_KEY).select("bert-base-uncased").run()
    at.switch_page("pages/tokens.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.dataframe, "the tokens table should render with the bundled model"


def _sidebar_says_model_in_use(at) -> bool:
    captions = [plain(c.value) for c in at.sidebar.caption]
    return any(c.startswith("In use: all-MiniLM-L6-v2") for c in captions) and any(
        "6 layers · hidden size 384" in c for c in captions
    )


def test_sidebar_names_the_model_on_home_and_on_a_page_stopped_by_bad_input(page):
    at = page("home")  # home is drawn before the model info (it needs no model)
    assert _sidebar_says_model_in_use(at)
    at.switch_page("pages/tokens.py").run()
    at.text_area(key="tokens.text").input("").run()
    assert at.error and "Text is empty" in at.error[0].value  # the page stopped early
    assert _sidebar_says_model_in_use(at)


def test_the_loaded_model_is_out_of_the_cyclic_collectors_reach(page):
    """Streamlit collects garbage after every run: objects of torch and the model are frozen
    once the first model loads, so that collection stays cheap (explorer.ui.model_in_use)."""
    import gc

    page("home")
    assert gc.get_freeze_count() > 100_000


def test_the_random_weights_text_form_still_picks_a_models_twin(page, tiny_bert_path, monkeypatch):
    """Typed under free entry, ``random-weights:<folder>`` (the form the explorer read before
    it had ModelRef) gives that model's random weights, read by ModelRef.parse alone."""
    from explorer.ui.model_in_use import MODELS

    monkeypatch.setenv("EXPLORER_MODELS", "*")
    at = page("home")
    at.selectbox(key=PICKER_KEY).select(_other_label(at)).run()
    at.text_input(key="model.other").input(f"random-weights:{tiny_bert_path}").run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.sidebar.error, [e.value for e in at.sidebar.error]
    twin = ModelRef(tiny_bert_path, random=True)
    assert at.session_state[MODEL_KEY] == twin
    assert twin in [key[0] for key in MODELS.keys()]
    captions = [plain(c.value) for c in at.sidebar.caption]
    assert f"In use: {tiny_bert_path} with random weights" in captions, captions


def test_random_weights_typed_under_free_entry_get_a_snippet_that_builds_them(
    page, tiny_bert_path, monkeypatch
):
    """Issue 34: the page ran the random weights, but its "Show code" loaded the trained ones
    (``from_pretrained``) and printed other numbers."""
    monkeypatch.setenv("EXPLORER_MODELS", "*")
    at = page("home")
    at.selectbox(key=PICKER_KEY).select(_other_label(at)).run()
    at.text_input(key="model.other").input(f"random-weights:{tiny_bert_path}").run()
    at.switch_page("pages/layers.py").run()
    assert not at.exception, [e.message for e in at.exception]
    codes = [c.value for c in at.code if "layer, token = " in c.value]
    assert codes, "the Layers page shows its snippet"
    assert "torch.manual_seed(0)" in codes[0] and "AutoModel.from_config(config" in codes[0]
    assert "AutoModel.from_pretrained" not in codes[0]


def _card(at, title: str) -> str:
    """The blurb under the card heading ``title``."""
    texts = [m.value for m in at.markdown]
    return texts[texts.index(f"#### {title}") + 1]


def test_the_cards_name_the_models_own_special_tokens(page, tiny_roberta_path, monkeypatch):
    # The Attention card read "[CLS], [SEP]" and "[MASK]", the Tokens card "em ##bed ##ding
    # ##s", whatever the model in use.
    from pathlib import Path

    monkeypatch.setenv("EXPLORER_MODELS", tiny_roberta_path)
    at = page("home")
    assert "`[CLS]`, `[SEP]`, the previous token" in _card(at, "Attention")
    assert "guesses for `[MASK]`" in _card(at, "Attention")
    assert "`em ##bed ##ding ##s`" in _card(at, "Tokens")
    at.selectbox(key=PICKER_KEY).set_value(f"{Path(tiny_roberta_path).name} (local)").run()
    assert not at.exception, [e.message for e in at.exception]
    attention = _card(at, "Attention")
    assert "`<s>`, `</s>`, the previous token" in attention and "`<mask>`" in attention
    assert "[CLS]" not in attention and "[MASK]" not in attention
    # On a fresh server the cards are drawn before the model loads, then name its tokens.
    from explorer.ui import model_in_use

    monkeypatch.setattr(model_in_use, "loaded_model", lambda: None)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert "`<s>`, `</s>`, the previous token" in _card(at, "Attention")


def test_a_card_promises_no_mask_token_the_model_has_not():
    from explorer.ui.pages import ModelTokens, card_blurb, page_info

    attention = page_info("pages/attention.py")
    tokens = ModelTokens("<s>", "</s>", None, ("em", "##bed"))
    text = card_blurb(attention, tokens)
    assert "`<s>`, `</s>`" in text and "guesses" not in text and "mask" not in text.lower()
    assert card_blurb(attention, None) == attention.blurb  # no model yet: no token named
    assert "[" not in attention.blurb and "##" not in page_info("pages/tokens.py").blurb
    assert "`` a`b ``" in card_blurb(attention, ModelTokens("a`b", None, None, ()))
