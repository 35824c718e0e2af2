"""The Streamlit layer: the only package of ``explorer`` that imports Streamlit.

One module per job, so a page finds each piece in one place. Shared by every page:

- :mod:`~explorer.ui.model_in_use` - the model resource (keyed by name) and the sidebar model
  picker;
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

One package per page, named after the page's title (never like a library module), each with
a face of the few names its page calls and private modules behind it:

- :mod:`~explorer.ui.word_pieces` - Tokens; :mod:`~explorer.ui.layer_by_layer` - Layers;
- :mod:`~explorer.ui.attention_heads` - Attention (the analysis cache, the masked-LM lens, head
  ablation); :mod:`~explorer.ui.word_in_context` - Word in context;
- :mod:`~explorer.ui.how_contextual` - How contextual?;
- :mod:`~explorer.ui.projection_maps` - Projections: the points and their cached maps, the map with
  its neighbour panel, the panels, views and second map around it, saved corpora's own maps and
  "Show code";
- :mod:`~explorer.ui.which_layer` - Which layer? (cached probes with parameters in frozen
  dataclasses, the rows probed, one layer up close, a saved corpus's rows);
- :mod:`~explorer.ui.similarity_search` - Similarity & search (and a saved corpus's search);
- :mod:`~explorer.ui.compare_models` - Compare models.

:mod:`~explorer.ui.cosine_split` ("Why are these two close?") is shared by Similarity & search
and the Projections neighbour panel.

Pages read widgets, call the library (through these caches) and render; anything a test would
want to check without a browser belongs in the library.
"""
