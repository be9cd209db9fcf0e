"""How standings read: at most two decimals in the reader's locale, Maumau in games, names told
apart."""
from __future__ import annotations

from fractions import Fraction

from django.utils import translation

from tournaments.standings.display import hands_text, number


def test_numbers_have_at_most_two_decimals_in_the_readers_locale():
    with translation.override("en"):
        assert [number(v) for v in (3, 2.0, 0.6667, 2.5, Fraction(1, 3), 1.005, -18)] == [
            "3", "2", "0.67", "2.5", "0.33", "1.01", "-18"]
    with translation.override("de"):
        assert number(0.6667) == "0,67" and number(2.5) == "2,5"


def test_maumau_counts_games_the_others_hands():
    with translation.override("en"):
        assert hands_text("maumau", 8) == "8 games" and hands_text("maumau", 1) == "1 game"
        assert hands_text("mu", 3) == "3 hands"
    with translation.override("de"):
        assert hands_text("maumau", 8) == "8 Spiele"

