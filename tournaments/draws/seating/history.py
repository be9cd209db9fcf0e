"""Tables, draws and the meeting history of earlier rounds: the values every algorithm of the
draw reads and returns.

``DrawTable`` is a table of a draw (players in seat order and the first dealer), not the
``models.Table`` row a published round stores; ``MeetingHistory`` counts who met whom, not the
rating history of ``ratings.league``.
"""
from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .players import Player, pair_key
from .sizes import GAME_SIZES


@dataclass(frozen=True)
class DrawTable:
    """Players in seat order (seat 0, 1, ... clockwise) and the seat of the first dealer."""

    players: tuple
    dealer: int = 0

    def __iter__(self):
        return iter(self.players)

    def __len__(self) -> int:
        return len(self.players)

    @property
    def first_dealer(self) -> Player:
        return self.players[self.dealer]


@dataclass
class Draw:
    """One round: its tables, the players with a bye, and ``quality`` against the history the
    round was drawn on."""

    tables: list[DrawTable]
    byes: list = field(default_factory=list)
    quality: dict = field(default_factory=dict)

    def __iter__(self):
        return iter(self.tables)

    def __len__(self) -> int:
        return len(self.tables)


def as_draw_table(table) -> DrawTable:
    """A ``DrawTable``, or a plain sequence of players read as seat order with the first dealer
    on seat 0."""
    return table if isinstance(table, DrawTable) else DrawTable(tuple(table), 0)


@dataclass
class MeetingHistory:
    """What earlier rounds did: the tables of each round (``played``, seat order) and counts.
    ``best`` holds the game's best table sizes (used to count rounds at an off-size table; empty
    means no size is off)."""

    best: tuple[int, ...] = ()
    meetings: Counter = field(default_factory=Counter)
    last_round: set = field(default_factory=set)
    last_tables: list = field(default_factory=list)
    off_size: Counter = field(default_factory=Counter)
    seats: dict = field(default_factory=dict)
    dealers: Counter = field(default_factory=Counter)
    byes: Counter = field(default_factory=Counter)
    played: list = field(default_factory=list)

    @classmethod
    def from_rounds(
        cls,
        rounds: Iterable,
        game: str | None = None,
        best: Iterable[int] | None = None,
        byes: Iterable[Iterable[Player]] | None = None,
    ) -> MeetingHistory:
        """Build the history from earlier rounds, oldest first. A round is a ``Draw`` or a list
        of tables; a table is a ``DrawTable`` or a list of players in seat order (first dealer
        on seat 0). ``game`` (or ``best``) sets the best sizes; ``byes`` lists each round's
        byes."""
        chosen = tuple(best) if best is not None else (GAME_SIZES[game].best if game else ())
        history = cls(best=chosen)
        bye_rounds = list(byes) if byes is not None else []
        for index, round_tables in enumerate(rounds):
            round_byes = bye_rounds[index] if index < len(bye_rounds) else ()
            if isinstance(round_tables, Draw):
                round_byes = list(round_byes) + list(round_tables.byes)
            history.add_round(round_tables, round_byes)
        return history

    def add_round(self, tables: Iterable, byes: Iterable[Player] = ()) -> None:
        """Count one more round (a ``Draw`` or a list of tables)."""
        pairs = set()
        tables = [as_draw_table(raw) for raw in tables]
        for table in tables:
            for seat, player in enumerate(table.players):
                self.seats.setdefault(player, Counter())[seat] += 1
                if self.best and len(table) not in self.best:
                    self.off_size[player] += 1
            self.dealers[table.first_dealer] += 1
            for a, b in itertools.combinations(table.players, 2):
                pairs.add(pair_key(a, b))
        for pair in pairs:
            self.meetings[pair] += 1
        self.last_round = pairs
        self.last_tables = [table.players for table in tables]
        for player in byes:
            self.byes[player] += 1
        self.played.append([table.players for table in tables])

    @property
    def rounds(self) -> int:
        return len(self.played)

    def met(self, a: Player, b: Player) -> int:
        """How often ``a`` and ``b`` have sat at one table."""
        return self.meetings.get(pair_key(a, b), 0)

    def copy(self) -> MeetingHistory:
        return MeetingHistory(
            best=self.best,
            meetings=Counter(self.meetings),
            last_round=set(self.last_round),
            last_tables=list(self.last_tables),
            off_size=Counter(self.off_size),
            seats={p: Counter(c) for p, c in self.seats.items()},
            dealers=Counter(self.dealers),
            byes=Counter(self.byes),
            played=list(self.played),
        )
