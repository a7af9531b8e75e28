"""Project tools run from the command line (``python -m tools.build``)."""
