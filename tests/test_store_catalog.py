"""The catalog of the operator's stores: a damaged or hostile store is listed apart, by its
folder's name and why, and never hides the good ones (issue 23, findings 4 and 6)."""

from __future__ import annotations

import pytest

from explorer.data.store import Settings, embed_to_store
from explorer.data.store.catalog import find_stores
from tests.bad_stores import REASONS, make_bad_stores
from tests.store_helpers import TEXTS, write_csv


@pytest.fixture(scope="module")
def corpora(tiny, tmp_path_factory):
    folder = tmp_path_factory.mktemp("catalog")
    source = write_csv(folder / "in.csv", TEXTS[:5])
    allowed = folder / "allowed"
    embed_to_store(tiny, source, allowed / "good", Settings(poolings=("mean",), layers="last"))
    make_bad_stores(allowed / "good", allowed, folder / "private")
    return allowed


def test_bad_stores_are_listed_apart_with_why_and_the_good_one_is_offered(corpora, tiny):
    catalog = find_stores([corpora])
    assert [(e.label, e.path) for e in catalog.stores] == [
        (f"good · 5 texts · {tiny.name.rsplit('/', 1)[-1]}", corpora / "good")
    ]
    found = {bad.name: bad.reason for bad in catalog.unreadable}
    assert sorted(found) == sorted(REASONS)
    for name, reason in found.items():
        assert REASONS[name] in reason, (name, reason)
        assert str(corpora.parent) not in reason and "private" not in reason, reason


def test_an_unfinished_store_is_left_out_silently(corpora, tmp_path):
    import shutil

    shutil.copytree(corpora / "good", tmp_path / "busy")
    manifest = (tmp_path / "busy/manifest.json").read_text()
    (tmp_path / "busy/manifest.json").write_text(
        manifest.replace('"complete": true', '"complete": false')
    )
    catalog = find_stores([tmp_path])
    assert catalog.stores == () and catalog.unreadable == ()
