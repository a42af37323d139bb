"""Where evidence comes from: local corpora (BM25), the built-in python-docs corpus, optional web tools,
and the registry that turns every result into a source record with a text snapshot."""
