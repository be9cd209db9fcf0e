"""``python -m bench.scale``: the service at two sizes of history, side by side (see ``__main__``)."""
