"""The AI workers: the process pool that runs strong AI moves, hints and hand reviews."""
