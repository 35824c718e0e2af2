"""The server's plumbing: the operator's settings (``EXPLORER_*``), request caps, the
byte-bounded compute pool (:mod:`~explorer.server.memo`), the allocator's trim, warm-up and
prewarm. Plain Python: no Streamlit; import the module you need."""
