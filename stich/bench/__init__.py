"""``python -m stich.bench``: the service at two sizes of history, side by side (see ``__main__``)."""
