"""Migration 0022 gives the clubs that exist the addresses of their public pages: made from their
names, unique, numbered where two names make the same address."""
from __future__ import annotations

import pytest


@pytest.mark.django_db(transaction=True)
def test_existing_clubs_get_unique_slugs():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    graph = executor.loader.graph
    target = next(key for key in graph.nodes if key[0] == "tournaments" and key[1].endswith("_club_slug"))
    before = next(parent.key for parent in graph.node_map[target].parents if parent.key[0] == "tournaments")
    leaves = graph.leaf_nodes()
    executor.migrate([before])
    try:
        old = executor.loader.project_state([before]).apps.get_model("tournaments", "Club")
        for name in ("Mü-Freunde Köln", "Mu Freunde Koln", "!!!", "Stichclub Bonn"):
            old.objects.create(name=name)
        executor = MigrationExecutor(connection)
        executor.migrate([target])
        new = executor.loader.project_state([target]).apps.get_model("tournaments", "Club")
        slugs = dict(new.objects.values_list("name", "slug"))
        assert slugs == {"Mü-Freunde Köln": "mu-freunde-koln", "Mu Freunde Koln": "mu-freunde-koln-2",
                         "!!!": "club", "Stichclub Bonn": "stichclub-bonn"}
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)
