"""A player's statistics per game, his timeline and his head-to-head with another player: reads
over the sessions and hands the reader sees (``policy.Visibility``), abandoned sessions left out
and only the hands that count (not voided, not waiting for a confirmation: ``results.counts``).

Per game, over his sessions with a counted hand (``sessions``) and the finished ones among them
(``finished``): ``wins`` (finished with the table's best total, shared or not, as the standings
count them), ``average_place`` (finished sessions: 1 + the seats with a higher total). Then:

- Mü, over his counted deals: how often he was ``chef`` and ``vice``; ``team_hands``, the played
  deals where he was on the Chef's team (the Chef or his partner) and ``team_goal_made``, those
  the team won; ``eklats_caused``, the Eklats in which he was the provocateur (the seat that pays,
  records.md).
- Maumau, over his counted games: ``average_minus`` (minus points per game) and ``cents``, his
  money over the finished series (won less paid, ``results.book.money``).
- Mit List und Tücke, over his counted rounds: ``average_points`` and ``colours_kept``, how often
  each colour was among his open stacks at the end of a round.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from django.db.models import Prefetch

from games.catalog import GAMES

from .. import policy
from ..models import Hand, Player, Seat, Session, Table
from ..results.book import money

LUT_COLOURS = ("B", "G", "R", "Y")


@dataclass
class Played:
    """One session of his as the statistics read it."""

    session: Session
    game: str
    seat: int
    players: list[int]
    totals: list[int]
    finished: bool

    @property
    def place(self) -> int:
        return 1 + sum(total > self.totals[self.seat] for total in self.totals)

    @property
    def won(self) -> bool:
        return self.finished and self.totals[self.seat] == max(self.totals)


def _average(total: float, count: int) -> float | None:
    return round(total / count, 2) if count else None


def played_sessions(player: Player, visibility: policy.Visibility) -> list[Played]:
    """His sessions with a counted hand, not abandoned, that the reader sees: oldest first."""
    sessions = (visibility.sessions().filter(table__seats__player=player, hand_count__gt=0)
                .exclude(status=Session.Status.ABANDONED)
                .select_related("table__round__event")
                .prefetch_related(Prefetch("table__seats", queryset=Seat.objects.order_by("position")))
                .order_by("started_at", "pk"))
    found = []
    for session in sessions:
        players = [seat.player_id for seat in session.table.seats.all()]
        if player.pk not in players or not session.totals:
            continue
        found.append(Played(session, session.table.round.event.game, players.index(player.pk), players,
                            list(session.totals), session.status == Session.Status.FINISHED))
    return found


def _counted_hands(sessions: list[Played]) -> dict[int, list[dict]]:
    """Session id → the results of its counted hands, in order."""
    results = defaultdict(list)
    rows = (Hand.objects.filter(session__in=[p.session.pk for p in sessions], voided=False, unconfirmed=False,
                                result__isnull=False).order_by("session", "number").values_list("session_id", "result"))
    for session_id, result in rows:
        results[session_id].append(result)
    return results


def game_stats(player: Player, visibility: policy.Visibility) -> dict[str, dict]:
    """Game code → his statistics (only the games he played), in the catalogue's order."""
    sessions = played_sessions(player, visibility)
    hands = _counted_hands(sessions)
    stats: dict[str, dict] = {}
    for game in GAMES:
        mine = [p for p in sessions if p.game == game]
        if not mine:
            continue
        finished = [p for p in mine if p.finished]
        row = {"sessions": len(mine), "finished": len(finished), "wins": sum(p.won for p in finished),
               "average_place": _average(sum(p.place for p in finished), len(finished))}
        counted = [(p, result) for p in mine for result in hands[p.session.pk]]
        if game == "mu":
            row.update(_mu(counted))
        elif game == "maumau":
            row.update(_maumau(counted, finished))
        else:
            row.update(_lut(counted))
        stats[game] = row
    return stats


def _mu(counted) -> dict:
    chef = vice = team = made = eklats = 0
    for p, result in counted:
        seat = p.seat
        chef += result.get("chef") == seat
        vice += result.get("vice") == seat
        if result.get("outcome") in ("won", "lost") and seat in (result.get("chef"), result.get("partner")):
            team += 1
            made += result["outcome"] == "won"
        if result.get("outcome") == "eklat":
            scores = result["scores"]
            # The provocateur pays (rules/mu.md §2): the one seat below zero.
            eklats += scores[seat] < 0 and scores[seat] == min(scores)
    return {"hands": len(counted), "chef": chef, "vice": vice, "team_hands": team, "team_goal_made": made,
            "eklats_caused": eklats}


def session_cents(p: Played) -> int:
    """His money from a finished Maumau series (won less paid)."""
    return money(p.totals, p.session.table.round.event.maumau_stake_cents)[0][p.seat]


def _maumau(counted, finished: list[Played]) -> dict:
    minus = sum(result["minus"][p.seat] for p, result in counted)
    return {"games": len(counted), "average_minus": _average(minus, len(counted)),
            "cents": sum(session_cents(p) for p in finished)}


def _lut(counted) -> dict:
    kept = Counter()
    for p, result in counted:
        stacks = (result.get("stacks") or [{}] * len(p.players))[p.seat]
        kept.update(colour for colour, size in stacks.items() if colour in LUT_COLOURS and size)
    points = sum(result["scores"][p.seat] for p, result in counted)
    return {"rounds": len(counted), "average_points": _average(points, len(counted)),
            "colours_kept": {colour: kept[colour] for colour in LUT_COLOURS}}


def timeline(player: Player, visibility: policy.Visibility) -> dict[str, list[dict]]:
    """Game → his finished sessions in the order they finished: when, his place of how many and,
    for Maumau, his money then and summed up to then (the charts of his pages)."""
    lines: dict[str, list[dict]] = defaultdict(list)
    running = 0
    finished = [p for p in played_sessions(player, visibility) if p.finished]
    finished.sort(key=lambda p: (p.session.finished_at or p.session.started_at, p.session.pk))
    for p in finished:
        point = {"session": p.session.pk, "event": p.session.table.round.event_id,
                 "finished_at": p.session.finished_at or p.session.started_at,
                 "place": p.place, "of": len(p.players)}
        if p.game == "maumau":
            cents = session_cents(p)
            running += cents
            point.update({"cents": cents, "running_cents": running})
        lines[p.game].append(point)
    return dict(lines)


def head_to_head(player: Player, other: Player, visibility: policy.Visibility) -> dict:
    """His sessions with ``other`` at the same table (with a counted hand, that the reader sees)
    and, of the finished ones, who finished ahead (a higher total) and how often they were level;
    in all and per game."""
    def empty():
        return {"sessions": 0, "finished": 0, "ahead": 0, "behind": 0, "level": 0}

    games: dict[str, dict] = {}
    together = empty()
    for p in played_sessions(player, visibility):
        if other.pk not in p.players:
            continue
        theirs = p.totals[p.players.index(other.pk)]
        for row in (together, games.setdefault(p.game, empty())):
            row["sessions"] += 1
            if p.finished:
                row["finished"] += 1
                mine = p.totals[p.seat]
                row["ahead" if mine > theirs else "behind" if mine < theirs else "level"] += 1
    return {**together, "games": games}


def opponents(player: Player, visibility: policy.Visibility) -> list[int]:
    """The players he sat with at a session the reader sees, most sessions first."""
    count = Counter()
    for p in played_sessions(player, visibility):
        count.update(other for other in p.players if other != player.pk)
    return [pk for pk, _ in sorted(count.items(), key=lambda item: (-item[1], item[0]))]


def open_tables(player: Player) -> list[tuple[Table, int]]:
    """His tables whose session is not over (finished or abandoned), newest event first, each
    with his seat: "your table, your seat". Held rounds and unpublished events included: he sits
    there (as ``Visibility.seated_tables``)."""
    closed = Session.objects.filter(status__in=[Session.Status.FINISHED, Session.Status.ABANDONED])
    tables = (Table.objects.filter(seats__player=player).exclude(sessions__in=closed)
              .select_related("round__event__club")
              .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position")))
              .order_by("-round__event__starts_on", "-round__number", "number").distinct())
    return [(table, next(seat.position for seat in table.seats.all() if seat.player_id == player.pk))
            for table in tables]
