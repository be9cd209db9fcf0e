"""The score sheet and hands that are wrong (issue 38), in Chromium on a 375-pixel phone: a hand its
own live check found wrong stays on the form when Enter is tapped (nothing is queued or sent, the
form does not move on to the next hand), and after a refused hand is discarded the hands queued
behind it take the dealers of their new slots."""
from __future__ import annotations

import json

import pytest

from tests.pages.wait import appear
from tests.sheet.test_sheet_browser import (  # noqa: F401
    TIMEOUT,
    Finger,
    enter,
    live,
    open_sheet,
    wait_error,
    wait_scores,
)

pytestmark = pytest.mark.browser


def submissions_counted(page) -> list[int]:
    """The hand (``?hand=N``) of every submission the sheet sends, in order."""
    tries: list[int] = []

    def count(route):
        if route.request.method == "POST":
            tries.append(int(route.request.url.split("hand=")[1].split("&")[0]))
        route.continue_()

    page.route("**/api/v1/tables/*/hands/**", count)
    return tries


def test_enter_on_a_hand_the_live_check_found_wrong_stays_on_the_hand(live, browser):
    from tournaments.models import Hand

    base, evening = live
    table = evening.tables["maumau"]
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="en-GB")
    tries = submissions_counted(page)
    finger = Finger(page)
    finger.numbers("#minus-0", [0, 5, 12, 3])
    enter(finger, 1)
    # Game 2: nobody went out (no 0). The live check says so at the minus points; Enter keeps it.
    finger.numbers("#minus-0", [3, 7, 1, 9])
    assert "0 minus points" in wait_error(page, "/summary/minus")
    finger.tap("#enter-hand")
    page.wait_for_timeout(500)
    assert page.inner_text("#entry-hand") == "Game 2"
    assert page.input_value("#minus-3") == "9"  # the form is as entered, to be fixed
    assert page.locator('.field-error[data-for="/summary/minus"]').count() == 1
    assert page.locator('#queue li[data-hand="2"]').count() == 0 and tries == [1]
    # Enter tapped before the check has answered (the typing pause not over): the same.
    finger.tap("#minus-3")
    finger.press("Backspace")
    finger.type("8")
    finger.tap("#enter-hand")
    appear(page, '.field-error[data-for="/summary/minus"]', timeout=TIMEOUT)
    page.wait_for_timeout(500)
    assert page.inner_text("#entry-hand") == "Game 2" and tries == [1]
    assert Hand.objects.filter(session__table=table).count() == 1
    # Fixed, it goes in as game 2.
    finger.tap("#minus-0")
    finger.press("Backspace")
    finger.type("0")
    enter(finger, 2)
    assert page.inner_text("#entry-hand") == "Game 3" and tries == [1, 2]
    assert [h.record["summary"]["minus"] for h in Hand.objects.filter(session__table=table).order_by("number")] == [
        [0, 5, 12, 3], [0, 7, 1, 8]]
    assert not errors
    context.close()


@pytest.mark.parametrize("game", ["maumau", "lut"])
def test_after_a_discard_the_queued_hands_take_the_dealers_of_their_new_slots(live, browser, game):
    from tournaments.models import Hand

    base, evening = live
    table = evening.tables[game]
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="en-GB")
    finger = Finger(page)
    refused = {"code": "hand_taken", "message": "Another phone entered this hand.", "path": ""}
    pending = [409]

    def refuse_hand_2(route):
        request = route.request
        if request.method == "POST" and "hand=2&" in request.url and pending:
            pending.pop()
            return route.fulfill(status=409, content_type="application/json", body=json.dumps(refused))
        return route.continue_()

    page.route("**/api/v1/tables/*/hands/**", refuse_hand_2)

    def fill(values) -> None:
        if game == "maumau":
            finger.numbers("#minus-0", values)
        else:
            for seat, stack in enumerate(values):
                for colour, count in stack.items():
                    finger.tap(f'input[name="stack-{seat}-{colour}"]')
                    finger.type(str(count))
        wait_scores(page)
        finger.tap("#enter-hand")

    if game == "maumau":
        hands = [[0, 5, 12, 3], [4, 0, 6, 2], [2, 3, 0, 1]]
    else:
        hands = [[{"B": 4, "G": 2}, {"R": 6, "Y": 4}, {"B": 2, "G": 4, "Y": 2}, {"R": 4, "Y": 2, "G": 2}],
                 [{"G": 8}, {"R": 4, "B": 2}, {"Y": 6}, {"B": 4, "R": 2, "Y": 2}],
                 [{"R": 2, "Y": 2, "discarded": 4}, {"B": 6}, {"G": 6, "R": 2}, {"Y": 4, "B": 2, "G": 2}]]
    fill(hands[0])
    appear(page, '#queue li[data-hand="1"][data-state="sent"]', timeout=TIMEOUT)
    appear(page, '#running tr[data-hand="1"]', timeout=TIMEOUT)
    fill(hands[1])  # dealt by seat 1 (Beate): the seat after the drawn first dealer
    appear(page, '#queue li[data-hand="2"][data-state="rejected"]', timeout=TIMEOUT)
    fill(hands[2])  # queued behind it for slot 3, dealt by seat 2 (Conny)
    waiting = page.locator('#queue li[data-hand="3"][data-state="waiting"]')
    assert "Conny Muster deals" in waiting.inner_text()
    finger.tap('#queue li[data-hand="2"] button.secondary')  # discard the refused hand
    appear(page, '#queue li[data-hand="2"][data-state="sent"]', timeout=TIMEOUT)
    assert "Beate Muster deals" in page.inner_text('#queue li[data-hand="2"]')
    stored = list(Hand.objects.filter(session__table=table).order_by("number"))
    assert [(hand.number, hand.dealer, hand.record["dealer"]) for hand in stored] == [(1, 0, 0), (2, 1, 1)]
    first = hands[2][0] if game == "maumau" else {**hands[2][0], "discarded": hands[2][0].get("discarded", 0)}
    assert (stored[1].record["summary"]["minus"][0] if game == "maumau"
            else stored[1].record["summary"]["stacks"][0]) == first
    assert page.inner_text("#dealer-line") == "Conny Muster deals"
    assert not errors
    context.close()
