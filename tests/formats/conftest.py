"""An event of many players for the seating methods and the final, with results written as
finished sessions of chosen totals (the kept sums rebuilt, as data written around the services
must)."""
from __future__ import annotations

import pytest

from tests.conftest import client_for, make_user


class Day:
    """An event of ``count`` checked-in players (start numbers 1..count in player order)."""

    def __init__(self, game: str, count: int, metrics: str = "total,wins", **options):
        from tournaments import services
        from tournaments.models import Club, Event, Membership, Player

        self.organiser = make_user(f"org-{game}-{count}")
        self.club = Club.objects.create(name=f"Club {game} {count}")
        self.club.organisers.add(self.organiser)
        self.event = Event.objects.create(club=self.club, name="Championship day", game=game, published=True,
                                          standings_metrics=metrics, **options)
        self.event.organisers.add(self.organiser)
        self.players = []
        for index in range(count):
            player = Player.objects.create(name=f"Spieler {index + 1:02d}")
            Membership.objects.create(player=player, club=self.club)
            services.player_check_in(event=self.event, player=player, by_user=self.organiser)
            self.players.append(player)
        self.number = {p.pk: i + 1 for i, p in enumerate(self.players)}
        self.client = client_for(self.organiser)

    def new_round(self, stage: str = "preliminary"):
        from tournaments.models import Round

        response = self.client.post("/api/v1/rounds/", {"event": self.event.pk, "stage": stage}, format="json")
        assert response.status_code == 201, response.content
        return Round.objects.get(pk=response.json()["id"])

    def draw(self, round_, method: str | None = None, **body):
        if method is not None:
            body["method"] = method
        response = self.client.post(f"/api/v1/rounds/{round_.pk}/draw/", body, format="json")
        return response

    def publish(self, round_):
        response = self.client.post(f"/api/v1/rounds/{round_.pk}/draw/publish/", format="json")
        assert response.status_code == 201, response.content
        return [t["players"] for t in response.json()]

    def finish(self, round_, totals_of):
        """Finish each table's session: ``totals_of(player id)`` is his total at it."""
        from tournaments.models import Session
        from tournaments.standings import sums

        for table in round_.tables.prefetch_related("seats"):
            seats = [s.player_id for s in table.seats.order_by("position")]
            Session.objects.create(table=table, number=1, status="finished", hand_count=1,
                                   totals=[totals_of(p) for p in seats])
        sums.rebuild([self.event.pk])


@pytest.fixture
def day_of(db):
    return Day
