"""AppTest of the Home page and of the sidebar model picker seen from it."""

from __future__ import annotations

from explorer import cache
from explorer.backend import DEFAULT_MODEL

PAGES = ("Tokens", "Layers", "Word in context", "Projections")


def _other_label(at) -> str:
    options = at.selectbox(key="sidebar.model_choice").options
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
    assert any("offline" in info.value for info in at.info)


def test_model_that_cannot_load_shows_a_sidebar_error_and_keeps_the_bundled_one(page):
    at = page("home")
    at.selectbox(key="sidebar.model_choice").select("bert-base-uncased").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.error, "expected an error in the sidebar"
    assert "bert-base-uncased" in at.sidebar.error[0].value.replace("\\", "")
    # The failed model never becomes the current one: the bundled model stays in use.
    chosen = at.session_state[cache.MODEL_KEY] if cache.MODEL_KEY in at.session_state else None
    assert chosen in (None, DEFAULT_MODEL)
    assert f"In use: **{DEFAULT_MODEL}**" in [c.value for c in at.sidebar.caption]
    assert "Still using" in at.sidebar.error[0].value
    assert at.title[0].value == "Contextual Embedding Explorer"
    assert len(at.page_link) >= len(PAGES)


def test_model_picker_rejects_a_url(page):
    at = page("home")
    at.selectbox(key="sidebar.model_choice").select(_other_label(at)).run()
    assert not at.exception, [e.message for e in at.exception]
    at.text_input(key="sidebar.model_other").input("https://evil.example/x").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.error
    assert "URL" in at.sidebar.error[0].value
    assert at.title[0].value == "Contextual Embedding Explorer"


def test_tokens_page_still_works_after_a_failed_model_choice(page):
    at = page("home")
    at.selectbox(key="sidebar.model_choice").select("bert-base-uncased").run()
    at.switch_page("pages/tokens.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.dataframe, "the tokens table should render with the bundled model"


def _sidebar_says_model_in_use(at) -> bool:
    captions = [c.value for c in at.sidebar.caption]
    return any(c.startswith(f"In use: **{DEFAULT_MODEL}**") for c in captions) and any(
        "6 layers · hidden size 384" in c for c in captions
    )


def test_sidebar_names_the_model_on_home_and_on_a_page_stopped_by_bad_input(page):
    at = page("home")  # home is drawn before the model info (it needs no model)
    assert _sidebar_says_model_in_use(at)
    at.switch_page("pages/tokens.py").run()
    at.text_area(key="tokens.text").input("").run()
    assert at.error and "Text is empty" in at.error[0].value  # the page stopped early
    assert _sidebar_says_model_in_use(at)
