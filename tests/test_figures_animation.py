"""explorer.figures.animation: the layer slider, the play button, fixed ranges, safe hovers."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer.figures.animation import animated_map, layer_names


def _frames(layers=7, n=6, seed=0):
    return np.random.default_rng(seed).standard_normal((layers, n, 2))


TEXTS = ["a <b>bold</b> claim", "money", "river", "bank", "loan", "fish"]
LABELS = ["finance", "finance", "river", "river", "<script>x</script>", "river"]


def test_one_frame_per_layer_with_a_slider_and_play_button():
    figure = animated_map(_frames(), TEXTS, LABELS, title="Layers")
    assert len(figure.frames) == 7
    assert [frame.name for frame in figure.frames] == layer_names(7)
    slider = figure.layout.sliders[0]
    assert [s.label for s in slider.steps] == layer_names(7)
    assert slider.currentvalue.prefix == "Layer "
    buttons = figure.layout.updatemenus[0].buttons
    assert buttons[0].method == "animate" and "Play" in buttons[0].label


def test_frames_move_every_label_trace_and_ranges_cover_all_frames():
    frames = _frames()
    figure = animated_map(frames, TEXTS, LABELS)
    label_traces = 3
    assert len(figure.data) == label_traces
    for i, frame in enumerate(figure.frames):
        assert list(frame.traces) == [0, 1, 2]
        xs = np.concatenate([np.asarray(d.x) for d in frame.data])
        assert sorted(xs) == pytest.approx(sorted(frames[i, :, 0]))
    x0, x1 = figure.layout.xaxis.range
    assert x0 <= frames[..., 0].min() and x1 >= frames[..., 0].max()
    assert figure.layout.xaxis.autorange is False


def test_hover_and_legend_are_escaped_and_rows_are_carried():
    figure = animated_map(_frames(), TEXTS, LABELS)
    hovers = [t for trace in figure.data for t in trace.text]
    assert any("&lt;b&gt;bold&lt;/b&gt;" in h for h in hovers)
    assert all("<b>bold" not in h for h in hovers)
    assert "&lt;script&gt;x&lt;/script&gt;" in [trace.name for trace in figure.data]
    rows = sorted(int(r) for trace in figure.data for r in trace.customdata)
    assert rows == list(range(6))


def test_trails_draw_each_selected_path():
    frames = _frames()
    figure = animated_map(frames, TEXTS, None, trails=[1, 4])
    trail = figure.data[-1]
    assert trail.mode == "lines"
    assert list(trail.x[:7]) == pytest.approx(frames[:, 1, 0]) and trail.x[7] is None
    assert len(figure.frames[0].data) == 1  # only the points move
    with pytest.raises(ValueError, match="Trail rows"):
        animated_map(frames, TEXTS, trails=[6])


def test_webgl_for_many_points():
    frames = _frames(layers=3, n=1500)
    texts = [f"t{i}" for i in range(1500)]
    figure = animated_map(frames, texts)
    assert isinstance(figure.data[0], go.Scattergl)
    assert isinstance(figure.frames[0].data[0], go.Scattergl)
    assert figure.layout.updatemenus[0].buttons[0].args[1]["frame"]["redraw"] is True
    assert isinstance(animated_map(_frames(), TEXTS).data[0], go.Scatter)


def test_bad_input():
    with pytest.raises(ValueError, match="layers, points, 2"):
        animated_map(np.zeros((3, 6, 3)), TEXTS)
    with pytest.raises(ValueError, match="texts"):
        animated_map(_frames(), TEXTS[:5])


@pytest.mark.parametrize(
    ("agreement", "words"),
    [
        ([0.4, 0.5, 0.7], "separate as context flows in"),
        ([0.7, 0.6, 0.45], "less separate at the end than at the input"),
        ([0.5, 0.8, 0.52], "about as separate"),
    ],
)
def test_motion_notice_follows_the_direction_of_the_numbers(agreement, words) -> None:
    from explorer.figures.animation import motion_notice

    text = motion_notice(agreement)
    assert words in text
    assert f"At layer 0, {agreement[0]:.0%}" in text and f"last layer {agreement[-1]:.0%}" in text
    # the peak is named only when it is not the first or the last layer's share
    assert ("most at layer 1 (80%)" in text) == (agreement[1] == 0.8)
    assert "clusters separate" in motion_notice([0.2, 0.6], "cluster")


def test_motion_notice_names_what_colours_the_points() -> None:
    from explorer.figures.animation import motion_notice

    text = motion_notice([0.2, 0.6], "“topic” value", "“topic” values")
    assert "share its “topic” value" in text and "The “topic” values separate" in text
    assert "label" not in text


def test_the_motion_notice_is_told_what_colours_the_points() -> None:
    from explorer.ui.projection_maps._motion import colour_noun

    assert colour_noun("Cluster") == ("cluster", "clusters")
    assert colour_noun("Sentence") == ("sentence", "sentences")
    assert colour_noun("topic") == ("label", "labels")  # the data's labels, whatever named
    assert colour_noun("mood", "mood") == ("“mood” value", "“mood” values")


def test_motion_caption_says_what_the_axes_are() -> None:
    from explorer.figures.animation import motion_caption
    from explorer.maps._animation import layer_maps

    X = np.random.default_rng(0).standard_normal((3, 12, 5)).astype(np.float32)
    joint = motion_caption(layer_maps(X, "pca", score=False))
    assert "one PCA fitted on all layers" in joint and "percentages" in joint
    assert "trail" not in joint  # no point is selected in this view (it said one was)
    alone = motion_caption(layer_maps(X, "pca", align="none", score=False), trails=True)
    assert "Each layer has its own PCA map." in alone and "share one set" not in alone
    assert alone.endswith("Selected points leave a trail.")


def test_play_buttons_and_slider_do_not_overlap_and_the_ticks_fit():
    # the Pause button covered the start of the slider, and "0 (embeddings)" was cut off
    figure = animated_map(_frames(), TEXTS, LABELS, title="Layers")
    menu, slider = figure.layout.updatemenus[0], figure.layout.sliders[0]
    assert menu.y >= 1.0 and menu.yanchor == "bottom"  # above the map
    assert slider.y < 0 and slider.yanchor == "top"  # below it
    assert slider.x == 0 and slider.len == 1
    assert slider.pad.l >= 40  # half of "0 (embeddings)" at the first tick
    assert figure.layout.margin.b >= 100 and figure.layout.margin.t >= 100
