"""Damaged or hostile stores in EXPLORER_CORPORA never break a page (issue 23, findings 4 and
6): Projections, Which layer? and Similarity & search offer the good store, name each bad one
as unreadable with why, and show no exception box and no server folder."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.app.rendered import plain
from tests.bad_stores import REASONS, make_bad_stores
from tests.store_helpers import TEXTS, write_csv

pytestmark = pytest.mark.slow


PAGES = [
    ("projections", "projections.source", "projections.store"),
    ("probe", "probe.source", "probe.store"),
    ("similarity", "similarity.corpus.source", "similarity.corpus.store"),
]


@pytest.fixture(scope="module")
def folders(tmp_path_factory, bundled):
    from explorer.data.store import embed_to_store

    root = tmp_path_factory.mktemp("bad-stores")
    allowed, only_bad = root / "allowed", root / "only-bad"
    source = write_csv(root / "input.csv", TEXTS)
    embed_to_store(bundled, source, allowed / "good", label_column="label")
    make_bad_stores(allowed / "good", allowed, root / "private")
    make_bad_stores(allowed / "good", only_bad, root / "private")
    return root, allowed, only_bad


def _shown(at) -> str:
    parts = (*at.markdown, *at.caption, *at.info, *at.error, *at.warning)
    return " ".join(plain(m.value) for m in parts)


@pytest.mark.parametrize(("name", "source", "store"), PAGES)
def test_bad_stores_are_named_and_the_good_one_opens(
    page, folders, monkeypatch, name, source, store
):
    root, allowed, _ = folders
    monkeypatch.setenv("EXPLORER_CORPORA", str(allowed))
    at = page(name)
    at.radio(key=source).set_value("saved").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key=store).options == ["good"]  # the box shows the name
    warning = plain(" ".join(w.value for w in at.warning))
    assert "Unreadable, not offered" in warning
    for bad, reason in REASONS.items():
        assert f"{bad} (" in warning and reason in warning, (bad, warning)
    assert str(root) not in _shown(at) and "private" not in _shown(at)
    assert not at.error, [plain(e.value) for e in at.error]


def test_the_good_store_draws_its_map_beside_the_bad_ones(page, folders, monkeypatch):
    _, allowed, _ = folders
    monkeypatch.setenv("EXPLORER_CORPORA", str(allowed))
    at = page("projections")
    at.radio(key="projections.source").set_value("saved").run()
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert f"PCA of {len(TEXTS)} sentence vectors" in figure["layout"]["title"]["text"]


@pytest.mark.parametrize(("name", "source", "store"), PAGES)
def test_only_bad_stores_say_none_can_be_opened(page, folders, monkeypatch, name, source, store):
    root, _, only_bad = folders
    monkeypatch.setenv("EXPLORER_CORPORA", str(only_bad))
    at = page(name)
    at.radio(key=source).set_value("saved").run()
    assert not at.exception, [e.message for e in at.exception]
    assert not [s for s in at.selectbox if s.key == store]
    assert "No saved corpus can be opened" in _shown(at)
    assert str(root) not in _shown(at)


@pytest.mark.parametrize(("name", "source", "store"), PAGES)
def test_a_file_linked_outside_is_refused_when_the_store_opens(
    page, folders, monkeypatch, name, source, store
):
    """A link on one file is found when the store opens (the catalog checks folders only):
    the page says which store, not where the link leads, and draws nothing from it."""
    root, allowed, _ = folders
    linked = root / "linked-file"
    if not linked.exists():
        shutil.copytree(allowed / "good", linked / "linked")
        target = linked / "linked/vectors/mean/layer_06.npy"
        target.unlink()
        target.symlink_to(root / "private/vectors/mean/layer_06.npy")
    monkeypatch.setenv("EXPLORER_CORPORA", str(linked))
    at = page(name)
    at.radio(key=source).set_value("saved").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key=store).options == ["linked"]
    errors = plain(" ".join(e.value for e in at.error))
    assert "The store 'linked' names a file outside its folder" in errors, errors
    assert str(root) not in _shown(at) and "private" not in _shown(at)
