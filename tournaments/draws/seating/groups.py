"""Rounds as groups of player indices: the form the searches work on.

A round is a list of groups, one per table, of indices 0..n-1 into the list of players; the
searches turn it into ``DrawTable`` only at the end.
"""
from __future__ import annotations

import random
from collections.abc import Sequence


def table_index(round_, n: int) -> list[int]:
    """For each of ``n`` players, the index of his table in ``round_`` (a list of groups)."""
    index = [0] * n
    for t, group in enumerate(round_):
        for i in group:
            index[i] = t
    return index


def random_groups(n: int, sizes: Sequence[int], rng: random.Random) -> list[list[int]]:
    """``n`` players shuffled into groups of ``sizes``, in that order."""
    order = list(range(n))
    rng.shuffle(order)
    groups, position = [], 0
    for k in sizes:
        groups.append(order[position:position + k])
        position += k
    return groups


def order_by_sizes(groups, sizes):
    """``groups`` ordered so that group t has ``sizes[t]`` players."""
    remaining = list(groups)
    ordered = []
    for k in sizes:
        group = next(g for g in remaining if len(g) == k)
        remaining.remove(group)
        ordered.append(group)
    return ordered


def check_round(players, sizes) -> None:
    """Raise ``ValueError`` unless ``sizes`` seat each of ``players`` exactly once."""
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    if sum(sizes) != len(players) or any(k < 1 for k in sizes):
        raise ValueError(f"table sizes {list(sizes)} do not seat {len(players)} players")
