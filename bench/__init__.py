"""The benchmarks, one namespace on top of every app (``python -m bench.<name>``):

- ``bench.engine``: the rule engine, records validated per second and the ratio to ``json.loads``;
- ``bench.ratings``: the rating kernel against openskill on a generated league;
- ``bench.seating``: the seating draw and planner against a plain baseline;
- ``bench.scale``: the service at two sizes of history (PostgreSQL, Redis, gunicorn, a worker).

Each prints figures measured in one run (ratios side by side: machines are noisy); none is a
timed test. Not part of the installed package.
"""
