"""The Projections page's Streamlit side: the points and their cached maps, the map with its
neighbour panel, the panels and views around it, saved corpora's own maps, "Show code".

The page calls these few names; the rooms behind them are private:

- ``_points`` what a map draws, as cache keys (texts, word occurrences, saved rows, uploads);
- ``_fit`` the points a source gives and their fitted, cached maps; ``_saved`` a saved
  corpus's rows and its own maps (``explorer project``);
- ``_shown`` what each point shows (text, span, label, titles, clusters);
- ``_colours`` what the map can be coloured by (labels, clusters, any column of the data);
- ``_controls`` the projection settings; ``_views`` the choice of view, ``_motion`` layers in
  motion, ``_axes`` custom axes;
- ``_map`` the map and its panel (a fragment), ``_panels`` the panels around it, ``_compare``
  the second map, ``_clusters`` named clusters, ``_download`` the map as a standalone HTML file,
  ``_code`` "Show code", ``_section`` all of it under the settings.
"""

from explorer.ui.projection_maps._colours import colour_choices
from explorer.ui.projection_maps._controls import embedding_controls, projection_controls
from explorer.ui.projection_maps._fit import fit, fitted, preservation, source_points
from explorer.ui.projection_maps._saved import menu_first_token
from explorer.ui.projection_maps._section import map_section
from explorer.ui.projection_maps._shown import shown_points
from explorer.ui.projection_maps._views import other_view

__all__ = [
    "colour_choices",
    "embedding_controls",
    "fit",
    "fitted",
    "map_section",
    "menu_first_token",
    "other_view",
    "preservation",
    "projection_controls",
    "shown_points",
    "source_points",
]
