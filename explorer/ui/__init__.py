"""The Streamlit layer: the only package of ``explorer`` that imports Streamlit.

One module per job, so a page finds each piece in one place. Shared by every page:

- :mod:`~explorer.ui.model` - the model resource (keyed by name) and the sidebar model picker;
- :mod:`~explorer.ui.compute` - cached computations (texts, word vectors, corpora), in the
  shared memory pool; :mod:`~explorer.ui.progress` - progress bars for long work;
- :mod:`~explorer.ui.sources` - where texts come from (built in, pasted, an uploaded CSV, a
  saved corpus, uploaded vectors: the text-source picker); :mod:`~explorer.ui.vectors` - the
  vector upload widgets and the search over uploaded vectors;
- :mod:`~explorer.ui.widgets` - widgets several pages share (choices, the label column picker,
  downloads, "Show code");
- :mod:`~explorer.ui.messages` - the only way a page shows text that may hold user input;
- :mod:`~explorer.ui.pages`, :mod:`~explorer.ui.navigation` - the router's pages and the
  legacy-mode guard; :mod:`~explorer.ui.presentation` - presentation mode for a projector
  (larger text, controls folded away, ``?present=true``); :mod:`~explorer.ui.prewarm` - the
  pages' first computations, run before the first visitor.

One page each (its cached computations or its page-sized sections):

- :mod:`~explorer.ui.tokens` - Tokens; :mod:`~explorer.ui.layers` - Layers;
- :mod:`~explorer.ui.attention`, :mod:`~explorer.ui.lens` - Attention (the analysis cache, the
  masked-LM lens); :mod:`~explorer.ui.context` - Word in context;
- :mod:`~explorer.ui.similarity`, :mod:`~explorer.ui.storesearch` - Similarity & search (and
  a saved corpus's search);
- :mod:`~explorer.ui.projections` - Projections, a package: the points and their cached maps,
  the map with its neighbour panel, the panels, views and second map around it, saved
  corpora's own maps and "Show code", behind a face of the few functions the page calls;
- :mod:`~explorer.ui.probing`, :mod:`~explorer.ui.probedata`, :mod:`~explorer.ui.probelayer` -
  Probe (cached probes with parameters in frozen dataclasses, the rows probed, one layer up
  close).

Pages read widgets, call the library (through these caches) and render; anything a test would
want to check without a browser belongs in the library.
"""
