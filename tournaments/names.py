"""Players as people recognise them: the one rule that tells namesakes apart.

A player is shown by the name the viewer may see (``Visibility.name``: the real name, the initials
he agreed to, or ``#id`` once deleted). Where another player is shown by the same name, the name
gets an addition in brackets, the first of these that is his alone among those namesakes:

1. what an organiser set to tell him apart (``Player.distinction``: a nickname, a middle initial,
   the town), shown only to viewers who see his real name (it could give away a player who shows
   initials only);
2. his clubs, where they differ from his namesakes' clubs;
3. his place among the namesakes by registration ("Max Müller (2)"), never the internal id.

Namesakes are looked for among all players, not only the ones on the page, so that a player has
the same name on the sheet, the table card, the room screen, the standings and the CSV.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Protocol

from django.db.models import BooleanField, Case, F, Q, Value, When
from django.db.models.lookups import In

from .models import Membership, Player


class Viewer(Protocol):
    """What the rule needs of a reader (``policy.Visibility`` is one): whether he is staff, and
    the players whose real names he sees. ``policy`` imports this module, not the other way."""

    staff: bool

    def real_names_q(self) -> Q: ...


class AnyOf(In):
    """``AnyOf(F("pk"), ids)``: the ``in`` lookup with its values as one parameter on PostgreSQL
    (``"id" = ANY(%s)``, an array): the statement's text is the same whatever the number of ids, so
    psycopg converts it once (it keeps the conversion of statements of up to 50 parameters only), and
    a hundred ids are not a hundred parameters to build. Elsewhere (SQLite) ``IN (...)``."""

    def as_postgresql(self, compiler, connection):
        if not self.rhs_is_direct_value():
            return self.as_sql(compiler, connection)
        lhs, params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s)", (*params, [value for value in self.rhs if value is not None])


def shown_names(visibility: Viewer, players: Iterable[Player | int]) -> dict[int, str]:
    """Player id → the name ``visibility``'s user sees, namesakes told apart (the module's rule).
    One query reads the players and everyone shown by one of their names (real names where seen,
    the stored public name else); a third, the namesakes' clubs, only when some have namesakes."""
    ids = {p if isinstance(p, int) else p.pk for p in players}
    if not ids:
        return {}
    listed = AnyOf(F("pk"), list(ids))
    shown = Player.objects.filter(listed, anonymised=False).annotate(shown=_shown(visibility)).order_by().values(
        "shown")
    rows = _seen(visibility, Player.objects.filter(
        Q(listed) | Q(anonymised=False) & (Q(name__in=shown) | Q(shown_name__in=shown))))
    names = {row["pk"]: _base(row) for row in rows if row["pk"] in ids}
    live = {names[row["pk"]] for row in rows if row["pk"] in ids and not row["anonymised"]}
    if not live:
        return names
    candidates = [row for row in rows if not row["anonymised"] and (row["name"] in live or row["shown_name"] in live)]
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in candidates:
        groups[_base(row)].append(row)
    groups = {name: rows for name, rows in groups.items() if len(rows) > 1 and name in live}
    if not groups:
        return names
    clubs: dict[int, list[str]] = defaultdict(list)
    for player, club in (Membership.objects.filter(player__in=[r["pk"] for rows in groups.values() for r in rows])
                         .order_by("club__name").values_list("player", "club__name")):
        clubs[player].append(club)
    for name, rows in groups.items():
        rows.sort(key=lambda row: row["pk"])
        additions = _additions(rows, clubs)
        for row in rows:
            if row["pk"] in ids and not row["anonymised"]:
                names[row["pk"]] = f"{name} ({additions[row['pk']]})"
    return names


def plain_names(visibility: Viewer, players: Iterable[Player | int]) -> dict[int, str]:
    """Player id → the name ``visibility``'s user sees, without the namesakes' addition (the name a
    player is stored under elsewhere: an export's player line). The same rule as ``shown_names``."""
    ids = {p if isinstance(p, int) else p.pk for p in players}
    if not ids:
        return {}
    return {row["pk"]: _base(row) for row in _seen(visibility, Player.objects.filter(AnyOf(F("pk"), list(ids))))}


def _shown(visibility: Viewer):
    """The name this viewer sees of a player not anonymised, as an expression (``_base``)."""
    if visibility.staff:
        return F("name")
    return Case(When(visibility.real_names_q(), then=F("name")), default=F("shown_name"))


def _seen(visibility: Viewer, players) -> list[dict]:
    """The players' name fields with ``real``: whether this viewer sees the real name."""
    real = Value(True) if visibility.staff else Case(
        When(visibility.real_names_q(), then=Value(True)), default=Value(False), output_field=BooleanField())
    return list(players.annotate(real=real).order_by("pk").values(
        "pk", "name", "shown_name", "initials_only", "anonymised", "distinction", "real"))


def _base(row: dict) -> str:
    if row["anonymised"]:
        return f"#{row['pk']}"
    return row["name"] if row["real"] else row["shown_name"]


def _additions(rows: list[dict], clubs: dict[int, list[str]]) -> dict[int, str]:
    """Player id → the addition that is his alone among ``rows`` (namesakes, by id)."""
    def unique(labels: dict[int, str]) -> set[int]:
        counts: dict[str, int] = defaultdict(int)
        for label in labels.values():
            counts[label] += 1
        return {pk for pk, label in labels.items() if label and counts[label] == 1}

    result: dict[int, str] = {}
    distinctions = {r["pk"]: r["distinction"].strip() if r["real"] else "" for r in rows}
    for pk in unique(distinctions):
        result[pk] = distinctions[pk]
    club_names = {r["pk"]: ", ".join(clubs.get(r["pk"], [])) for r in rows}
    for pk in unique(club_names) - set(result):
        result[pk] = club_names[pk]
    for place, row in enumerate(rows, start=1):
        result.setdefault(row["pk"], str(place))
    return result
