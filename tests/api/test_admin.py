"""The admin shows every model; rows that only the services write are read-only there."""
from __future__ import annotations

import random

from django.contrib import admin
from django.test import Client

from tests.api.play import play_session
from tests.conftest import client_for


def test_every_model_has_an_admin_page_with_its_rows(world):
    from ratings.services import pool_sync

    table = world.events["maumau"].rounds.get().tables.first()
    event = world.events["maumau"]
    event.maumau_games_per_series = 2
    event.save()
    play_session(client_for(world.organiser), table, "maumau", random.Random(4))
    pool_sync("maumau")
    browser = Client()
    browser.force_login(world.staff.__class__.objects.create_superuser("root", password="pw-root"))
    for model in admin.site._registry:
        meta = model._meta
        url = f"/admin/{meta.app_label}/{meta.model_name}/"
        response = browser.get(url)
        assert response.status_code == 200, url
        first = model.objects.first()
        if first is not None:
            assert browser.get(f"{url}{first.pk}/change/").status_code == 200, url
    registered = {model._meta.label for model in admin.site._registry}
    assert {"tournaments.Club", "tournaments.Player", "tournaments.Event", "tournaments.Round", "tournaments.Table",
            "tournaments.Session", "tournaments.Transfer", "tournaments.Hand", "ratings.Rating"} <= registered


def test_hands_and_ratings_cannot_be_edited_in_the_admin(world):
    from tournaments.models import Hand

    browser = Client()
    browser.force_login(world.staff.__class__.objects.create_superuser("root", password="pw-root"))
    assert browser.get("/admin/tournaments/hand/add/").status_code == 403
    assert browser.get("/admin/ratings/rating/add/").status_code == 403
    assert Hand.objects.count() == 0


def test_rounds_are_drawn_and_published_from_the_admin(world):
    from tournaments import services
    from tournaments.models import Round

    round_ = Round.objects.create(event=world.events["mu"], number=2)
    for player in world.players:  # the draw seats the players checked in
        services.player_check_in(event=world.events["mu"], player=player, by_user=world.organiser)
    browser = Client()
    browser.force_login(world.staff.__class__.objects.create_superuser("root", password="pw-root"))
    changelist = "/admin/tournaments/round/"
    for action in ("draw_preview", "draw_publish"):
        response = browser.post(changelist, {"action": action, "_selected_action": [round_.pk]}, follow=True)
        assert response.status_code == 200
    round_.refresh_from_db()
    assert round_.draft and round_.tables.count() == 3
    # Publishing twice is refused with a message, not an error page.
    response = browser.post(changelist, {"action": "draw_publish", "_selected_action": [round_.pk]}, follow=True)
    assert "already" in response.content.decode() and round_.tables.count() == 3
