"""AppTest of the "Which layer?" page: built-in defaults, URL state, uploads and bad CSVs."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.rendered import plain

pytestmark = pytest.mark.slow


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def test_word_senses_by_default_layer_zero_near_baseline(page):
    at = page("probe")
    assert not at.error and not at.warning
    metrics = {m.label: m.value for m in at.metric}
    baseline = float(metrics["Majority baseline"])
    assert baseline == pytest.approx(0.47, abs=0.01)
    assert abs(float(metrics["Embedding layer (0)"]) - baseline) < 0.1
    best = next(label for label in metrics if label.startswith("Best: layer"))
    assert float(metrics[best].split("±")[0]) > baseline + 0.3
    band = at.dataframe[0].value.loc[0, "within_noise"]
    assert best == f"Best: layer{'s' if '–' in band or ',' in band else ''} {band}"
    (layers,) = _figures(at)  # the CNN trains only on request
    assert [t["name"] for t in layers["data"]][0] == "Mean of subwords"  # single-token words
    names = [t["name"] for t in layers["data"]]
    assert any("baseline" in name.lower() for name in names)
    # the control task beside the probe, and its selectivity in a panel below
    assert "Mean of subwords: control task" in names and "yaxis2" in layers["layout"]
    notice = next(plain(i.value) for i in at.info if "read best" in plain(i.value))
    assert "On a control task" in notice and "selectivity" in notice
    at.toggle(key="probe.cnn").set_value(True).run()
    _ok(at)
    layers, heads = _figures(at)
    assert [t["name"] for t in heads["data"]][0].startswith("Accuracy")
    linear, cnn = heads["data"][0]["text"]  # what to notice: the numbers on the two bars
    said = next(plain(i.value) for i in at.info if "1-D CNN scores" in plain(i.value))
    assert f"CNN scores {cnn} ±" in said and f"linear probe {linear} ±" in said
    assert at.dataframe[0].value.loc[0, "features"] == "Mean of subwords"
    assert len(at.get("download_button")) == 4  # vectors, CSV, scores; the program's data
    assert "LogisticRegression" in at.code[0].value and "StratifiedGroupKFold" in at.code[0].value
    # Issue 33: the rows are a file beside the program (299 lines, 240 of them rows); it
    # probes every layer to print the whole headline (about 110 lines with the control task)
    assert len(at.code[0].value.splitlines()) <= 115
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Data for the program (probe_data.json)" in labels


def test_a_link_naming_the_features_chooses_them(fresh_app):
    """The selectbox was renamed probe.strategy -> probe.features (issue 34): a link with the
    new name chooses the option (test_url_query_parameters_restore_the_view: the old too)."""
    at = fresh_app
    at.query_params.update(
        {
            "probe.dataset": "Sentiment (sentence level)",
            "probe.poolings": ["[CLS] token", "Mean of tokens"],
            "probe.features": "[CLS] token",
        }
    )
    at.run()
    at.switch_page("pages/probe.py").run()
    _ok(at)
    assert at.selectbox(key="probe.features").value == "cls"


def test_url_query_parameters_restore_the_view(fresh_app):
    """A shared link: Streamlit's bound widgets put their displayed labels in the URL."""
    at = fresh_app
    at.query_params.update(
        {
            "probe.dataset": "Sentiment (sentence level)",
            "probe.poolings": ["[CLS] token", "Mean of tokens"],
            "probe.folds": "3",
            "probe.layer": "2",
            "probe.strategy": "[CLS] token",
            "probe.cnn": "true",
        }
    )
    at.run()
    at.switch_page("pages/probe.py").run()
    _ok(at)
    assert at.selectbox(key="probe.dataset").value == "sentiment"
    assert at.multiselect(key="probe.poolings").value == ["cls", "mean"]
    assert at.slider(key="probe.folds").value == 3
    assert at.selectbox(key="probe.layer").value == 2
    assert at.selectbox(key="probe.features").value == "cls"  # the old name still chooses
    layers, heads = _figures(at)
    assert [t["name"] for t in layers["data"]][:2] == ["[CLS] token", "Mean of tokens"]
    assert "3-fold" in layers["layout"]["title"]["text"]
    assert heads["layout"]["title"]["text"] == "Layer 2: two heads"
    assert not [box for box in at.selectbox if box.key == "probe.word"]  # a sentence task


def _upload(at, data: bytes) -> AppTest:
    at.file_uploader(key="probe.upload").set_value(("data.csv", data, "text/csv"))
    return at.run()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"text,topic\na,b\n", "no 'label' column"),
        (b"text,label\na,x\nb,x\nc,x\n", "Only one class"),
        (b"text,label\na,x\nb,x\nc,y\n", "single example"),
        (b"text,label\n" + b"a,x\n" * 5001, "5,000"),
        (b"text,word,label\nthe bank,bank,x\nthe bat,bank,y\nbank,bank,x\nbank,bank,y\n", "1 of 4"),
    ],
)
def test_bad_uploads_show_clear_errors(page, data, message):
    at = page("probe")
    at.radio(key="probe.source").set_value("upload").run()
    _ok(at)
    assert at.info and "text,label" in at.info[0].value
    _upload(at, data)
    _ok(at)
    assert at.error and message in at.error[0].value, [e.value for e in at.error]


def test_uploaded_sentence_task_lowers_folds(page):
    at = page("probe")
    at.radio(key="probe.source").set_value("upload").run()
    rows = [f"I love this {w}!,pos" for w in ("cake", "song", "film", "town")]
    rows += [f"I hate this {w}.,neg" for w in ("cake", "song", "film")]
    _upload(at, ("text,label\n" + "\n".join(rows)).encode())
    _ok(at)
    assert not at.error
    assert any("3-fold" in plain(i.value) for i in at.info)
    assert len(_figures(at)) == 1


def test_large_upload_is_probed_on_a_stratified_sample(page, monkeypatch):
    """Beyond the row budget the page probes a sample of every class, and says so (a CSV
    sorted by label used to keep its first class only)."""
    from explorer.server import limits

    monkeypatch.setattr(limits, "MAX_PROBE_TEXTS", 60)
    monkeypatch.setattr(limits, "MAX_PROBE_TRAIN_ROWS", 120)  # 60 rows: at most 3 folds
    at = page("probe")
    at.radio(key="probe.source").set_value("upload").run()
    rows = [f"I love this {w} number {i}!,pos" for i in range(100) for w in ("cake", "song")]
    rows += [f"I hate this {w} number {i}.,neg" for i in range(50) for w in ("cake", "song")]
    _upload(at, ("text,label\n" + "\n".join(rows)).encode())
    _ok(at)
    assert not at.error
    note = next(plain(i.value) for i in at.info if "Probing" in plain(i.value))
    assert "60 of 300 rows" in note and "stratified by label" in note
    assert any("Using 3-fold cross-validation instead of 5" in plain(i.value) for i in at.info)
    (layers,) = _figures(at)
    assert "60 texts, 3-fold CV" in layers["layout"]["title"]["text"]


def test_repeated_texts_are_counted_and_kept_in_one_fold(page):
    """Tickets that repeat (issue 33.2): the page says how many rows repeat a text, and a probe
    of random labels per text stays near the majority baseline at every layer."""
    import numpy as np

    rng = np.random.default_rng(0)
    words = "printer invoice password wifi laptop refund login router screen licence".split()
    pairs = rng.choice(words, size=(40, 2))
    texts = [f"Ticket {i}: the {a} and the {b} fail" for i, (a, b) in enumerate(pairs)]
    queue = rng.choice(["billing", "hardware"], size=40)  # random: nothing in a text says it
    order = np.repeat(np.arange(40), 3)
    rows = [f"{texts[i] if k % 2 else texts[i].upper()},{queue[i]}" for k, i in enumerate(order)]
    at = page("probe")
    at.radio(key="probe.source").set_value("upload").run()
    _upload(at, ("text,label\n" + "\n".join(rows)).encode())
    _ok(at)
    assert not at.error
    assert any("80 of the 120 rows repeat a text" in plain(i.value) for i in at.info)
    assert any("(80 rows repeat a text)" in plain(c.value) for c in at.caption)
    metrics = {m.label: m.value for m in at.metric}
    best = next(label for label in metrics if label.startswith("Best: layer"))
    # memorising the repeated texts gave 1.00 at every layer
    assert float(metrics[best].split("±")[0]) < 0.85


def test_the_sentences_name_the_models_own_first_token(roberta_page):
    """Issue 33.7: with <s>/</s> specials the probe's sentences never say [CLS]."""
    at = roberta_page("probe")
    at.radio(key="probe.source").set_value("upload").run()
    rows = [f"I love this {w}!,pos" for w in ("cake", "song", "film", "town", "book")]
    rows += [f"I hate this {w}.,neg" for w in ("cake", "song", "film", "town", "book")]
    _upload(at, ("text,label\n" + "\n".join(rows)).encode())
    at.multiselect(key="probe.poolings").set_value(["cls", "mean"]).run()
    _ok(at)
    shown = " ".join(plain(e.value) for e in [*at.markdown, *at.caption, *at.info])
    shown += json.dumps(_figures(at))
    assert "<s> token" in shown and "[CLS]" not in shown, shown[:2000]
    menu = at.multiselect(key="probe.poolings")  # its options read "[CLS] token"
    assert "<s> token" in menu.options and not any("[CLS]" in o for o in menu.options)
