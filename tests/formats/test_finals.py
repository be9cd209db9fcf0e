"""The final stage: the top N of the preliminary rounds play a final round; the final ranking is
the final's points plus the carry-over (none, half, all), computed by hand here."""
from __future__ import annotations

import csv
import io
from fractions import Fraction

import pytest

from tournaments.standings.finals import final_ranking, qualifiers
from tournaments.standings.metrics import StandingRow, Sums

# Preliminary totals of the four best after two rounds, and their totals in the final:
#   A 50 + 45 = 95, B 40 + 40 = 80, C 35 + 40 = 75, D 30 + 31 = 61; the eight others at most 22.
#   Final: A 10, B 40, C 30, D 35 (B wins the final table).
ROUND_1 = {"A": 50, "B": 40, "C": 35, "D": 30}
ROUND_2 = {"A": 45, "B": 40, "C": 40, "D": 31}
FINAL = {"A": 10, "B": 40, "C": 30, "D": 35}
# By hand, points = final + carry × preliminary (metric: total):
#   none: B 40, D 35, C 30, A 10
#   half: A 10 + 47.5 = 57.5, B 40 + 40 = 80, C 30 + 37.5 = 67.5, D 35 + 30.5 = 65.5 → B, C, D, A
#   all:  A 105, B 120, C 105, D 96 → B, then A and C level on points and on final wins (0 each):
#         the preliminary rank decides (A 1st, C 3rd) → B, A, C, D
EXPECTED = {
    "none": [("B", 40, 0, 40), ("D", 35, 0, 35), ("C", 30, 0, 30), ("A", 10, 0, 10)],
    "half": [("B", 40, 40, 80), ("C", 30, 37.5, 67.5), ("D", 35, 30.5, 65.5), ("A", 10, 47.5, 57.5)],
    "all": [("B", 40, 80, 120), ("A", 10, 95, 105), ("C", 30, 75, 105), ("D", 35, 61, 96)],
}
PRELIMINARY_RANK = {"A": 1, "B": 2, "C": 3, "D": 4}


def run_day(day_of, carry: str):
    day = day_of("mu", 12, final_size=4, final_carry=carry)
    names = dict(zip("ABCD", day.players[8:12]))  # the finalists are the last four to check in
    letter = {p.pk: name for name, p in names.items()}
    others = {p.pk: i for i, p in enumerate(day.players[:8], start=10)}  # 10..17 per round: at most 34
    for totals in (ROUND_1, ROUND_2):
        round_ = day.new_round()
        assert day.draw(round_, "varied", seed=len(totals)).status_code == 200
        day.publish(round_)
        day.finish(round_, lambda p, totals=totals: totals[letter[p]] if p in letter else others[p] // 2)
    final = day.new_round("final")
    draft = day.draw(final).json()  # a final round: by standings, the finalists at one table of four
    assert draft["method"] == "standings"
    assert [sorted(t["players"]) for t in draft["tables"]] == [sorted(p.pk for p in names.values())]
    assert draft["tables"][0]["players"] and draft["byes"] == []
    day.publish(final)
    day.finish(final, lambda p: FINAL[letter[p]])
    return day, names, letter


@pytest.mark.parametrize("carry", ["none", "half", "all"])
def test_the_final_ranking_adds_the_carry_over(day_of, carry):
    day, names, letter = run_day(day_of, carry)
    document = day.client.get(f"/api/v1/events/{day.event.pk}/standings/").json()
    assert document["stage"] == "final"
    final = document["final"]
    assert final["size"] == 4 and final["carry"] == carry and final["metric"] == "total"
    got = [(letter[row["player"]], row["final"], row["carried"], row["points"]) for row in final["standings"]]
    assert got == EXPECTED[carry]
    assert [row["rank"] for row in final["standings"]] == [1, 2, 3, 4]
    assert {letter[row["player"]]: row["preliminary_rank"] for row in final["standings"]} == PRELIMINARY_RANK
    # The standings beside it are the preliminary ranking: the final's points are not in them.
    preliminary = {row["player"]: row for row in document["standings"]}
    assert len(preliminary) == 12
    assert {name: preliminary[p.pk]["total"] for name, p in names.items()} == {"A": 95, "B": 80, "C": 75, "D": 61}
    assert [row["player"] for row in document["standings"][:4]] == [names[n].pk for n in "ABCD"]
    # The CSV: the final's rows first, then the preliminary ranking, a column naming the stage.
    response = day.client.get(f"/api/v1/events/{day.event.pk}/standings.csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:8] == ["stage", "rank", "player", "name", "played", "final", "carried", "points"]
    assert [(r[0], r[1], int(r[2])) for r in rows[1:5]] == [("final", str(i), names[n].pk)
                                                            for i, (n, *_) in enumerate(EXPECTED[carry], 1)]
    assert [r[0] for r in rows[5:]] == ["preliminary"] * 12


def test_pages_show_the_final_and_the_preliminary_ranking_apart(day_of, client):
    day, names, letter = run_day(day_of, "half")
    client.force_login(day.organiser)
    for url in (f"/events/{day.event.pk}/", f"/events/{day.event.pk}/screen/", f"/console/events/{day.event.pk}/"):
        page = client.get(url).content.decode()
        assert 'id="final-standings"' in page, url
        assert page.index("final-standings") < page.index('id="standings"'), url
        assert "67.5" in page  # C's points with half of his preliminary 75


def test_a_tie_at_the_cut_goes_to_the_lower_start_number():
    rows = [StandingRow("a", 1, 2), StandingRow("b", 2, 2), StandingRow("c", 3, 2), StandingRow("e", 4, 2),
            StandingRow("d", 4, 2), StandingRow("f", 6, 2)]
    assert qualifiers(rows, 4, {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6}) == ["a", "b", "c", "d"]
    assert qualifiers(rows, 4, {"a": 1, "b": 2, "c": 3, "d": 9, "e": 5, "f": 6}) == ["a", "b", "c", "e"]


def test_half_of_placement_points_is_kept_exactly():
    from tournaments.results.book import PLACEMENT_SCALE

    prelim = {"x": Sums(3, 3, 5 * PLACEMENT_SCALE // 3, 0, 0), "y": Sums(3, 3, 2 * PLACEMENT_SCALE, 0, 0)}
    final = {"x": Sums(1, 1, PLACEMENT_SCALE, 0, 1), "y": Sums(1, 1, 0, 0, 0)}
    rows = final_ranking(["y", "x"], prelim, {"y": 1, "x": 2}, final, ["placement", "wins"], "half")
    # x: 1 + 5/3 / 2 = 11/6; y: 0 + 2 / 2 = 1.
    assert [(r.player, r.points) for r in rows] == [("x", Fraction(11, 6)), ("y", Fraction(1))]


def test_a_final_needs_the_event_final_stage_and_a_size_the_game_can_seat(day_of):
    day = day_of("mu", 8)
    response = day.client.post("/api/v1/rounds/", {"event": day.event.pk, "stage": "final"}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "no_final"
    url = f"/api/v1/events/{day.event.pk}/"
    for size in (7, 2, 13):  # Mü tables seat 3 to 6: 7 and 13 are no multiple of one, 2 too few
        response = day.client.patch(url, {"final_size": size}, format="json")
        assert response.status_code == 400 and response.json()["code"] == "bad_final_size", size
    for size in (3, 4, 8, 10, 12):
        assert day.client.patch(url, {"final_size": size, "final_carry": "half"}, format="json").status_code == 200
    response = day.client.patch(url, {"final_carry": "most"}, format="json")
    assert response.status_code == 400
    # Before any preliminary result there are no finalists.
    day.client.patch(url, {"final_size": 8}, format="json")
    final = day.new_round("final")
    response = day.draw(final)
    assert response.status_code == 409 and response.json()["code"] == "too_few_finalists"
    # After a round, eight finalists of Mü at two tables of four (the best size that divides
    # eight), the leaders at table 1.
    final.delete()
    first = day.new_round()
    day.draw(first, seed=1)
    day.publish(first)
    day.finish(first, lambda p: p % 7 * 10)
    final = day.new_round("final")
    draft = day.draw(final).json()
    assert [len(t["players"]) for t in draft["tables"]] == [4, 4]
    totals = {p.pk: p.pk % 7 * 10 for p in day.players}
    assert min(totals[p] for p in draft["tables"][0]["players"]) >= max(totals[p] for p in draft["tables"][1]["players"])


def test_the_export_keeps_the_final_stage(day_of):
    from tournaments import policy
    from tournaments.results.exchange import export_text, import_lines

    day, names, letter = run_day(day_of, "half")
    copy = import_lines(export_text(day.event, visibility=policy.Visibility(day.organiser)).splitlines(),
                        by_user=day.organiser)
    assert (copy.final_size, copy.final_carry) == (4, "half")
    assert list(copy.rounds.order_by("number").values_list("stage", flat=True)) == ["preliminary", "preliminary",
                                                                                    "final"]
