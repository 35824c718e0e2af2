"""The Streamlit layer: the only package of ``explorer`` that imports Streamlit.

One module per job, so a page finds each piece in one place:

- :mod:`~explorer.ui.model` - the model resource (keyed by name) and the sidebar model picker;
- :mod:`~explorer.ui.compute` - cached computations (texts, word vectors, corpora);
- :mod:`~explorer.ui.projections` and :mod:`~explorer.ui.probing` - cached projections and
  probes, their parameters grouped in frozen dataclasses;
- :mod:`~explorer.ui.mapview`, :mod:`~explorer.ui.maps`, :mod:`~explorer.ui.views` - the
  Projections map with its neighbour panel, the panels around it, the other views;
- :mod:`~explorer.ui.sources`, :mod:`~explorer.ui.savedmap`, :mod:`~explorer.ui.storesearch`
  - where texts come from (typed, uploaded, built in, a saved corpus), a saved corpus's map
  and its search;
- :mod:`~explorer.ui.layers` - the Layers page's detail sections;
- :mod:`~explorer.ui.progress` - progress bars for long work;
- :mod:`~explorer.ui.widgets` - widgets several pages share (the text-source picker,
  downloads, "Show code");
- :mod:`~explorer.ui.messages` - the only way a page shows text that may hold user input;
- :mod:`~explorer.ui.navigation` - the router's pages and the legacy-mode guard;
- :mod:`~explorer.ui.presentation` - presentation mode for a projector (larger text, controls
  folded away, ``?present=true``).

Pages read widgets, call the library (through these caches) and render; anything a test would
want to check without a browser belongs in the library.
"""
