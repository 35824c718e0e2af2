""" "Download this map": the map's figure as one standalone HTML file (plotly.js inside, so it
opens offline, hover and zoom included), its size on the button."""

from __future__ import annotations

from explorer.figures.frozen import FrozenFigure
from explorer.figures.standalone import size_label, standalone_html, standalone_size

DOWNLOAD_KEY = "projections.download_html"


def html_size(figure: FrozenFigure) -> int:
    """About the bytes of :func:`standalone_html` of ``figure`` (:func:`standalone_size`:
    from its JSON, without writing the file), measured once per figure."""
    size = getattr(figure, "_html_size", None)
    if size is None:
        size = standalone_size(figure)
        figure._html_size = size
    return size


def html_download(container, figure: FrozenFigure, method: str) -> None:
    """A download button in ``container`` for ``figure`` (the map as drawn, without the
    clicked point's rings) as a standalone HTML file named after ``method``; the file is
    written when the button is pressed."""
    container.download_button(
        f"Download this map (HTML, {size_label(html_size(figure))})",
        lambda: standalone_html(figure),
        file_name=f"{method}-map.html",
        mime="text/html",
        on_click="ignore",
        key=DOWNLOAD_KEY,
        icon=":material/download:",
        help="One HTML file with the map and plotly.js inside: it opens in any browser, "
        "offline, with hover, zoom and the legend; hand it out as it is.",
    )
