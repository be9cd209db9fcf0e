"""Random legal games, for property tests, the demo data and the benchmark.

Each module (``mu``, ``maumau``, ``lut``) exports ``random_record(rng, players, dealer=0, **options)``
returning a full record of ``../shared/records.md`` that the engine must accept.
"""
