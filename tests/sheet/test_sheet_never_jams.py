"""The score sheet never jams: a server error is retried with a growing pause and the sheet says so;
a hand the server refuses is shown with the reason and the field, to fix or discard; the hands
entered meanwhile wait visibly and then arrive in order, once. The faults are injected by
intercepting the sheet's submissions in the browser."""
from __future__ import annotations

import json
import time

import pytest

from tests.sheet.test_sheet_browser import TIMEOUT, Finger, live, open_sheet, shoot, wait_scores  # noqa: F401

pytestmark = pytest.mark.browser

ROUNDS = [
    [{"B": 4, "G": 2}, {"R": 6, "Y": 4}, {"B": 2, "G": 4, "Y": 2}, {"R": 4, "Y": 2, "G": 2}],
    [{"R": 2, "Y": 2, "discarded": 4}, {"B": 6}, {"G": 6, "R": 2}, {"Y": 4, "B": 2, "G": 2}],
    [{"G": 8}, {"R": 4, "B": 2}, {"Y": 6}, {"B": 4, "R": 2, "Y": 2}],
    [{"B": 4, "G": 2}, {"R": 6, "Y": 4}, {"B": 2, "G": 4, "Y": 2}, {"R": 4, "Y": 2, "G": 2}],
]


def fill(finger: Finger, stacks) -> None:
    for seat, stack in enumerate(stacks):
        for colour, count in stack.items():
            finger.tap(f'input[name="stack-{seat}-{colour}"]')
            finger.type(str(count))
    wait_scores(finger.page)
    finger.tap("#enter-hand")


def entry(page, hand: int, state: str):
    selector = f'#queue li[data-hand="{hand}"][data-state="{state}"]'
    page.wait_for_selector(selector, timeout=TIMEOUT)
    return page.locator(selector)


def test_a_server_error_is_retried_with_growing_pauses_and_a_refusal_waits_for_the_table(live, browser):
    from tournaments.models import Hand

    base, evening = live
    table = evening.tables["lut"]
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="en-GB")
    finger = Finger(page)
    tries: list[tuple[int, float]] = []  # (hand, time) of every submission that reached the "server"
    faults = {1: [500, 502], 3: [422]}  # per hand, the answers to inject before the real server's
    refusal = {"code": "claimed_mismatch", "message": "Seat 1 wrote other stacks than the cards say.",
               "path": "/summary/stacks/1"}

    def submissions(route):
        request = route.request
        if request.method != "POST":
            return route.continue_()
        hand = int(request.url.split("hand=")[1].split("&")[0])
        tries.append((hand, time.monotonic()))
        pending = faults.get(hand) or []
        if not pending:
            return route.continue_()
        status = pending.pop(0)
        body = refusal if status == 422 else {"code": "server_error", "message": "Server error."}
        return route.fulfill(status=status, content_type="application/json", body=json.dumps(body))

    page.route("**/api/v1/tables/*/hands/**", submissions)

    # 1. A 5xx: the hand waits for its next try, and the sheet says why and when.
    fill(finger, ROUNDS[0])
    retrying = entry(page, 1, "retrying")
    assert "error 500" in retrying.inner_text() and "Next try in" in retrying.inner_text()
    # a hand entered meanwhile waits visibly behind it
    fill(finger, ROUNDS[1])
    waiting = entry(page, 2, "waiting")
    assert "Waits until Round 1 is through" in waiting.inner_text()
    shoot(page, "sheet-retrying")
    page.wait_for_selector('#queue li[data-hand="1"][data-state="retrying"]:has-text("error 502")',
                           timeout=TIMEOUT)  # the second try failed too
    entry(page, 2, "sent")
    assert [hand.number for hand in Hand.objects.filter(session__table=table).order_by("number")] == [1, 2]
    first, second, third = [moment for hand, moment in tries if hand == 1]
    assert 1.5 < second - first < third - second  # the pause grows: 2 s, then 4 s

    # 2. A refusal (4xx): shown with the reason and the field; later hands wait for the table.
    fill(finger, ROUNDS[2])
    rejected = entry(page, 3, "rejected")
    assert refusal["message"] in rejected.inner_text()
    assert "/summary" not in rejected.inner_text()  # the pointer is for the sheet, not for people
    assert rejected.locator('.reason[data-path="/summary/stacks/1"]').count() == 1
    fill(finger, ROUNDS[3])
    assert "Waits until Round 3 is through" in entry(page, 4, "waiting").inner_text()
    shoot(page, "sheet-refused")
    page.wait_for_timeout(2500)  # nothing is sent behind a refused hand
    assert [hand for hand, _ in tries].count(4) == 0
    assert Hand.objects.filter(session__table=table).count() == 2
    # fix: the reason stands at its field; entering the hand again sends it, and then the next
    finger.tap('#queue li[data-hand="3"] button.fix')
    page.wait_for_selector('.field-error[data-for="/summary/stacks/1"]', timeout=TIMEOUT)
    assert "Fix hand 3" in page.inner_text("#entry-hand")
    finger.tap("#enter-hand")
    entry(page, 4, "sent")
    hands = list(Hand.objects.filter(session__table=table).order_by("number"))
    assert [hand.number for hand in hands] == [1, 2, 3, 4]
    assert [hand.record["summary"]["stacks"][2] for hand in hands] == [
        {**stacks[2], "discarded": stacks[2].get("discarded", 0)} for stacks in ROUNDS]
    assert not errors
    context.close()
