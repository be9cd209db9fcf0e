"""The console's event form (every option, the game's own ones only), undoing a payment mark, and
the standings' CSV and print links (Django's test client)."""
from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from tests.api.play import next_record


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    settings.STORAGES = {
        **settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def fieldset(html: str, game: str) -> str:
    return re.search(rf'<fieldset data-game="{game}"[^>]*>', html).group(0)


FORM = {"name": "Serie", "game": "maumau", "metric_1": "placement", "metric_2": "", "metric_3": ""}


def test_the_form_offers_confirmation_and_only_the_games_options(world):
    from tournaments.models import AuditEntry, Event

    client = logged_in(world.club_organiser)
    html = client.get("/console/events/new/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'name="confirm_hands"' in html and "A second player confirms each hand" in html
    assert "hidden" not in fieldset(html, "mu") and "hidden" in fieldset(html, "maumau")
    assert "stich/event-form.js" in html and "<script>" not in html and " onchange=" not in html
    # A Maumau event: the Mü fields are ignored (even when emptied), the Maumau ones kept.
    response = client.post("/console/events/new/", {
        **FORM, "club": world.club.pk, "confirm_hands": "on", "mu_target_score": "", "mu_fixed_deals": "7",
        "maumau_games_per_series": 6, "maumau_stake_cents": 5})
    event = Event.objects.get(name="Serie")
    assert response.status_code == 302
    assert event.confirm_hands and event.game == "maumau"
    assert (event.maumau_games_per_series, event.maumau_stake_cents) == (6, 5)
    assert event.mu_fixed_deals is None and event.mu_target_score == Event._meta.get_field("mu_target_score").default
    page = client.get(f"/console/events/{event.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "A second player confirms each hand." in page
    edit = client.get(f"/console/events/{event.pk}/edit/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "hidden" in fieldset(edit, "mu") and "hidden" not in fieldset(edit, "maumau")
    assert re.search(r'<input type="checkbox" name="confirm_hands"[^>]*checked', edit)
    # Switched off again through the console, audited as a page change.
    client.post(f"/console/events/{event.pk}/edit/", {
        **FORM, "club": world.club.pk, "maumau_games_per_series": 6, "maumau_stake_cents": 5})
    event.refresh_from_db()
    assert not event.confirm_hands
    assert AuditEntry.objects.filter(action="event_changed", object_id=event.pk, via="page").exists()


def test_the_chosen_games_options_are_still_required(world):
    from tournaments.models import Event

    client = logged_in(world.club_organiser)
    response = client.post("/console/events/new/", {
        **FORM, "game": "mu", "club": world.club.pk, "mu_target_score": "", "maumau_games_per_series": ""})
    assert response.status_code == 400 and not Event.objects.filter(name="Serie").exists()
    assert "hidden" not in fieldset(response.content.decode(), "mu")


def _settled_transfer(world):
    from tournaments.models import Transfer
    from tournaments.results import services as results

    event = world.events["maumau"]
    event.maumau_games_per_series = 2
    event.save()
    table = event.rounds.get(number=1).tables.order_by("number").first()
    for seed in range(7, 40):
        rng, summary = random.Random(seed), None
        while summary is None or summary["status"] == "open":
            summary = results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("maumau", rng, 4, summary)), by_user=world.organiser).receipt["session"]
        transfer = Transfer.objects.filter(session__table=table).first()
        if transfer is not None:
            return transfer
    pytest.fail("no series with a payment")


def test_a_payment_mark_is_undone_with_a_reason(world):
    from tournaments.models import AuditEntry

    transfer = _settled_transfer(world)
    client = logged_in(world.organiser)
    client.post(f"/console/transfers/{transfer.pk}/paid/")
    page = client.get(f"/console/events/{world.events['maumau'].pk}/money/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'action="/console/transfers/{transfer.pk}/unpaid/"' in page and "Not paid after all" in page
    client.post(f"/console/transfers/{transfer.pk}/unpaid/", {"reason": "ticked the wrong line"})
    transfer.refresh_from_db()
    assert not transfer.paid and transfer.paid_at is None
    entry = AuditEntry.objects.get(action="transfer_unpaid", object_id=transfer.pk)
    assert entry.via == "page" and entry.reason == "ticked the wrong line"
    assert entry.before["paid"] is True and entry.after == {"paid": False, "cents": transfer.cents}
    # Undoing what is not marked: refused, nothing written.
    response = client.post(f"/console/transfers/{transfer.pk}/unpaid/", follow=True)
    assert "not marked paid" in response.content.decode()
    assert AuditEntry.objects.filter(action="transfer_unpaid").count() == 1
    # Only the event's organisers.
    assert logged_in(world.other_organiser).post(f"/console/transfers/{transfer.pk}/unpaid/").status_code == 403


def test_standings_have_csv_and_print_links_in_the_console_and_in_public(world):
    from tournaments.results import services as results

    event = world.events["mu"]
    event.mu_fixed_deals = 1
    event.save()
    round_ = event.rounds.get(number=1)
    table = round_.tables.order_by("number").first()
    results.hand_submit(table_id=table.pk, entry=results.Entry(next_record("mu", random.Random(5), 4, None)), by_user=world.organiser)
    csv_url, print_url = f"/api/v1/events/{event.pk}/standings.csv", f"/events/{event.pk}/standings/print/"
    for html in (Client().get(f"/events/{event.pk}/").content.decode(),
                 logged_in(world.organiser).get(f"/console/events/{event.pk}/").content.decode()):
        assert f'href="{csv_url}"' in html and f'href="{print_url}"' in html
    assert b"".join(Client().get(csv_url).streaming_content).decode().startswith("rank,player,name")
    printed = Client().get(print_url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="standings"' in printed and "stich/print.css" in printed and table.seats.first().player.name in printed
    # Held back: the public's print leaves the round out, the organisers' says it includes it.
    round_.results_held = True
    round_.save()
    assert 'id="standings"' not in Client().get(print_url).content.decode()
    organisers = logged_in(world.organiser).get(print_url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="standings"' in organisers and "Including the rounds you hold back" in organisers
    event.published = False
    event.save()
    assert Client().get(print_url).status_code == 404


def test_a_payment_mark_is_undone_over_the_api_too(world):
    from tests.conftest import client_for
    from tournaments.models import AuditEntry

    transfer = _settled_transfer(world)
    api = client_for(world.organiser)
    assert api.post(f"/api/v1/transfers/{transfer.pk}/paid/").status_code == 200
    bad = api.post(f"/api/v1/transfers/{transfer.pk}/unpaid/", {"reason": ["x"]}, format="json")
    assert bad.status_code == 400 and bad.json()["code"]
    transfer.refresh_from_db()
    assert transfer.paid
    answer = api.post(f"/api/v1/transfers/{transfer.pk}/unpaid/", {"reason": "cash came back"}, format="json")
    assert answer.status_code == 200 and answer.json()["paid"] is False
    assert AuditEntry.objects.get(action="transfer_unpaid").via == "api"
    again = api.post(f"/api/v1/transfers/{transfer.pk}/unpaid/", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "not_paid"
