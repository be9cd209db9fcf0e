"""The score sheet never jams: a server error is retried with a growing pause and the sheet says so;
a hand the server refuses is shown with the reason and the field, to fix or discard; the hands
entered meanwhile wait visibly and then arrive in order, once. The faults are injected by
intercepting the sheet's submissions in the browser. The sheet's time is Playwright's clock,
paused: the pauses between tries pass when the test moves it on, so it checks that no try comes a
moment early and one comes on time, without waiting the pauses out."""
from __future__ import annotations

import json

import pytest

from tests.pages.wait import appear
from tests.sheet.test_sheet_browser import (  # noqa: F401
    TIMEOUT,
    Finger,
    live,
    open_sheet,
    shoot,
    wait_scores,
)

pytestmark = pytest.mark.browser

ROUNDS = [
    [{"B": 4, "G": 2}, {"R": 6, "Y": 4}, {"B": 2, "G": 4, "Y": 2}, {"R": 4, "Y": 2, "G": 2}],
    [{"R": 2, "Y": 2, "discarded": 4}, {"B": 6}, {"G": 6, "R": 2}, {"Y": 4, "B": 2, "G": 2}],
    [{"G": 8}, {"R": 4, "B": 2}, {"Y": 6}, {"B": 4, "R": 2, "Y": 2}],
    [{"B": 4, "G": 2}, {"R": 6, "Y": 4}, {"B": 2, "G": 4, "Y": 2}, {"R": 4, "Y": 2, "G": 2}],
]


class Clock:
    """The sheet's clock (Playwright's, paused), and how far the test has moved it."""

    def __init__(self, page) -> None:
        self.page, self.ms = page, 0
        page.clock.install()
        page.clock.pause_at(page.evaluate("Date.now()") + 1000)

    def run(self, ms: int) -> None:
        self.page.clock.run_for(ms)
        self.ms += ms


def fill(finger: Finger, clock: Clock, stacks) -> None:
    for seat, stack in enumerate(stacks):
        for colour, count in stack.items():
            finger.tap(f'input[name="stack-{seat}-{colour}"]')
            finger.type(str(count))
    clock.run(400)  # the check waits for typing to pause (350 ms)
    wait_scores(finger.page)
    finger.tap("#enter-hand")


def entry(page, hand: int, state: str):
    selector = f'#queue li[data-hand="{hand}"][data-state="{state}"]'
    appear(page, selector, timeout=TIMEOUT)
    return page.locator(selector)


def test_a_server_error_is_retried_with_growing_pauses_and_a_refusal_waits_for_the_table(live, browser):
    from tournaments.models import Hand

    base, evening = live
    table = evening.tables["lut"]
    context, page, errors = open_sheet(browser, f"{base}/t/{table.scorer_token}/", locale="en-GB")
    clock = Clock(page)
    finger = Finger(page)
    tries: list[int] = []  # the hand of every submission that reached the "server"
    faults = {1: [500, 502], 3: [422]}  # per hand, the answers to inject before the real server's
    refusal = {"code": "claimed_mismatch", "message": "Seat 1 wrote other stacks than the cards say.",
               "path": "/summary/stacks/1"}

    def submissions(route):
        request = route.request
        if request.method != "POST":
            return route.continue_()
        hand = int(request.url.split("hand=")[1].split("&")[0])
        tries.append(hand)
        pending = faults.get(hand) or []
        if not pending:
            return route.continue_()
        status = pending.pop(0)
        body = refusal if status == 422 else {"code": "server_error", "message": "Server error."}
        return route.fulfill(status=status, content_type="application/json", body=json.dumps(body))

    page.route("**/api/v1/tables/*/hands/**", submissions)

    def settled() -> None:
        """Time for a try the clock set off to reach the route (its fetch starts at once)."""
        page.wait_for_timeout(250)

    # 1. A 5xx: the hand waits for its next try, and the sheet says why and when.
    fill(finger, clock, ROUNDS[0])
    first = clock.ms
    retrying = entry(page, 1, "retrying")
    assert "error 500" in retrying.inner_text() and "Next try in" in retrying.inner_text()
    # a hand entered meanwhile waits visibly behind it
    fill(finger, clock, ROUNDS[1])
    waiting = entry(page, 2, "waiting")
    assert "Waits until Round 1 is through" in waiting.inner_text()
    shoot(page, "sheet-retrying")
    # The pause grows: the second try comes 2 s after the first, the third 4 s after the second.
    clock.run(first + 1900 - clock.ms)
    settled()
    assert tries.count(1) == 1 and "error 500" in entry(page, 1, "retrying").inner_text()
    clock.run(200)
    page.wait_for_selector('#queue li[data-hand="1"][data-state="retrying"]:has-text("error 502")',
                           timeout=TIMEOUT)  # the second try failed too
    assert tries.count(1) == 2
    clock.run(3800)
    settled()
    assert tries.count(1) == 2
    clock.run(200)
    entry(page, 2, "sent")
    assert tries.count(1) == 3
    assert [hand.number for hand in Hand.objects.filter(session__table=table).order_by("number")] == [1, 2]

    # 2. A refusal (4xx): shown with the reason and the field; later hands wait for the table.
    fill(finger, clock, ROUNDS[2])
    rejected = entry(page, 3, "rejected")
    assert refusal["message"] in rejected.inner_text()
    assert "/summary" not in rejected.inner_text()  # the pointer is for the sheet, not for people
    assert rejected.locator('.reason[data-path="/summary/stacks/1"]').count() == 1
    fill(finger, clock, ROUNDS[3])
    assert "Waits until Round 3 is through" in entry(page, 4, "waiting").inner_text()
    shoot(page, "sheet-refused")
    clock.run(60_000)  # nothing is sent behind a refused hand, however long the table waits
    settled()
    assert tries.count(4) == 0 and tries.count(3) == 1
    assert Hand.objects.filter(session__table=table).count() == 2
    # fix: the reason stands at its field; entering the hand again sends it, and then the next
    finger.tap('#queue li[data-hand="3"] button.fix')
    appear(page, '.field-error[data-for="/summary/stacks/1"]', timeout=TIMEOUT)
    assert "Fix hand 3" in page.inner_text("#entry-hand")
    finger.tap("#enter-hand")
    entry(page, 4, "sent")
    hands = list(Hand.objects.filter(session__table=table).order_by("number"))
    assert [hand.number for hand in hands] == [1, 2, 3, 4]
    assert [hand.record["summary"]["stacks"][2] for hand in hands] == [
        {**stacks[2], "discarded": stacks[2].get("discarded", 0)} for stacks in ROUNDS]
    assert not errors
    context.close()
