"""Input and output: corpus stores (:mod:`~explorer.data.store`), the built-in corpora and
examples, pasted lines and CSV uploads, uploaded vector files (``.npy`` or Parquet) and
exports. Plain Python: no Streamlit; import the module you need."""
