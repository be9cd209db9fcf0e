"""The console's draw form with a method, the seating script page and the final's options (Django's
test client)."""
from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
import pytest


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    settings.STORAGES = {
        **settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def console(day) -> Client:
    client = Client()
    client.force_login(day.organiser)
    return client


def test_the_draw_form_seats_by_the_method_chosen(day_of):
    day = day_of("maumau", 16)
    client = console(day)
    round_ = day.new_round()
    page = client.get(f"/console/rounds/{round_.pk}/").content.decode()
    assert 'name="method"' in page and 'value="interval"' in page and 'value="script"' in page
    client.post(f"/console/rounds/{round_.pk}/draw/", {"method": "varied"})
    day.publish(round_)
    day.finish(round_, lambda p: p * 3)  # distinct totals: the standings have no tie
    second = day.new_round()
    response = client.post(f"/console/rounds/{second.pk}/draw/", {"method": "interval"})
    assert response.status_code == 302
    second.refresh_from_db()
    assert second.draft["method"] == "interval"
    order = sorted((p.pk for p in day.players), key=lambda p: -p)
    assert [sorted(t["players"]) for t in second.draft["tables"]] == [
        sorted(order[i] for i in (t, t + 4, t + 8, t + 12)) for t in range(4)]
    page = client.get(f"/console/rounds/{second.pk}/").content.decode()
    assert "Seated by interval" in page
    assert '<option value="interval" selected>' in page  # drawing again keeps the method
    # A method that does not exist changes nothing.
    client.post(f"/console/rounds/{second.pk}/draw/", {"method": "alphabetical"})
    second.refresh_from_db()
    assert second.draft["method"] == "interval"


def test_a_script_with_errors_comes_back_as_form_errors_and_nothing_is_stored(day_of):
    day = day_of("mu", 8)
    client = console(day)
    url = f"/console/events/{day.event.pk}/seating-script/"
    page = client.get(url).content.decode()
    assert "Numbers in the event" in page and "Spieler 08" in page
    response = client.post(url, {"text": "1,1,1,2,3,4\n1,2,5,6,7,9\n1,3,5,6"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "line 2: no player has the number 9 in this event" in page
    assert "line 3: a table of 2 players" in page
    day.event.refresh_from_db()
    assert day.event.seating_script is None


def test_a_script_uploaded_as_a_windows_file_is_stored_and_drawn(day_of):
    day = day_of("mu", 8)
    client = console(day)
    url = f"/console/events/{day.event.pk}/seating-script/"
    body = "Runde;Tisch;Spieler (Startnummer)\r\n1;1;8;7;6;5\r\n1;2;4;3;2;1\r\n".encode("cp1252")
    response = client.post(url, {"text": "", "file": SimpleUploadedFile("sitzplan.csv", body, "text/csv")})
    assert response.status_code == 302, response.content.decode()
    day.event.refresh_from_db()
    assert day.event.seating_script["rounds"]["1"][0]["numbers"] == [8, 7, 6, 5]
    round_ = day.new_round()
    client.post(f"/console/rounds/{round_.pk}/draw/", {"method": "script"})
    round_.refresh_from_db()
    assert [t["players"] for t in round_.draft["tables"]] == [[p.pk for p in day.players[7:3:-1]],
                                                               [p.pk for p in day.players[3::-1]]]
    assert "Seated as the event" in client.get(f"/console/rounds/{round_.pk}/").content.decode()


def test_the_players_page_shows_the_start_numbers(day_of):
    day = day_of("mu", 8)
    page = console(day).get(f"/console/events/{day.event.pk}/players/").content.decode()
    assert "No. 1</span> <strong>Spieler 01" in page and "No. 8</span> <strong>Spieler 08" in page


def test_the_event_form_sets_up_a_final_and_refuses_a_size_the_game_cannot_seat(day_of):
    day = day_of("mu", 8)
    client = console(day)
    url = f"/console/events/{day.event.pk}/edit/"
    form = {"club": day.club.pk, "name": "Championship day", "game": "mu", "format": "rounds",
            "mu_target_score": 200, "metric_1": "total", "metric_2": "wins", "metric_3": ""}
    response = client.post(url, {**form, "final_size": 7, "final_carry": "half"})
    assert response.status_code == 400 and "The finalists must fill tables of one size" in response.content.decode()
    response = client.post(url, {**form, "final_size": 4, "final_carry": "half"})
    assert response.status_code == 302
    day.event.refresh_from_db()
    assert (day.event.final_size, day.event.final_carry) == (4, "half")
    page = client.get(f"/console/events/{day.event.pk}/").content.decode()
    assert 'id="new-final-round"' in page and "The top 4 of the preliminary rounds play the final" in page
    client.post(f"/console/events/{day.event.pk}/rounds/new/", {"stage": "final"})
    assert day.event.rounds.get().stage == "final"
