"""A club evening for the score sheet's tests: an organiser, named players and one event per game
with a round and a table whose first dealer was drawn."""
from __future__ import annotations

from dataclasses import dataclass

NAMES = ["Anna", "Beate", "Conny", "Dagmar", "Emma", "Frieda"]


@dataclass
class Evening:
    organiser: object
    players: list
    tables: dict  # game -> Table
    events: dict  # game -> Event


def build_evening(*, mu_players: int = 5, confirm_hands: bool = False, mu_fixed_deals: int = 4,
                  maumau_games: int = 4) -> Evening:
    from tests.conftest import make_user
    from tournaments.models import Club, Event, Membership, Player, Round
    from tournaments.services import table_create

    organiser = make_user("organiser")
    club = Club.objects.create(name="Stichclub", city="Köln")
    club.organisers.add(organiser)
    players = []
    for name in NAMES:
        player = Player.objects.create(name=f"{name} Muster")
        Membership.objects.create(player=player, club=club)
        players.append(player)
    sizes = {"mu": mu_players, "maumau": 4, "lut": 4}
    tables, events = {}, {}
    for game in ("mu", "maumau", "lut"):
        event = Event.objects.create(
            club=club, name={"mu": "Mü-Abend", "maumau": "Maumau-Runde", "lut": "List und Tücke"}[game], game=game,
            published=True, mu_fixed_deals=mu_fixed_deals, maumau_games_per_series=maumau_games,
            maumau_stake_cents=10, confirm_hands=confirm_hands,
        )
        event.organisers.add(organiser)
        round_ = Round.objects.create(event=event, number=1)
        tables[game] = table_create(round_=round_, number=1, players=players[:sizes[game]], first_dealer=0,
                                    by_user=None)
        events[game] = event
    return Evening(organiser, players, tables, events)


def play_hands(table, hands: int, seed: int, by_user) -> None:
    """``hands`` generated legal hands at ``table`` (the engine's simulator), through the service."""
    import random
    from importlib import import_module

    from tournaments.results.services import (
        Entry,
        current_session,
        hand_submit,
        session_summary,
    )

    game = table.round.event.game
    simulate = import_module(f"games.simulate.{game}")
    rng = random.Random(seed)
    players = table.seats.count()
    for _ in range(hands):
        session = current_session(table)
        following = (session_summary(session)["next"] if session is not None
                     else {"dealer": table.first_dealer, "direction": 1})
        dealer = following["dealer"] if following["dealer"] is not None else 0
        options = {"direction": following["direction"] or 1} if game == "maumau" else {}
        record = simulate.random_record(rng, players, dealer=dealer, **options)
        hand_submit(table_id=table.pk, entry=Entry(record), by_user=by_user)
