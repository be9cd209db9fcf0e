"""The seating draw: who sits where in a round, as plain Python over plain players.

No database and no Django here: players are any hashable values (usually ids), the history is
built from the tables of earlier rounds, and a draw is a list of tables in seat order with the
first dealer. The service that creates a round's tables (``tournaments.draws.services``) turns a draw
into ``Table`` and ``Seat`` rows.

The pieces, in the order an organiser meets them (one algorithm per module):

- ``sizes``: ``table_sizes(game, players)`` picks the mix of table sizes for a number of
  present players (``GAME_SIZES`` says what each game allows and likes best; ``mix_key`` is the
  criterion); ``plan_byes`` gives byes when no mix seats everyone (7 players of Mit List und
  Tücke).
- ``history``: ``MeetingHistory`` keeps the earlier rounds and counts: pair meetings, the
  previous round's pairs, rounds at an off-size table, seats, first deals and byes;
  ``DrawTable`` and ``Draw`` are what a draw returns.
- ``costs``: the objectives below as integer weights (``RoundCosts``).
- ``round_draw``: ``draw_round`` draws one round: a random start, then the tabu search over
  swaps of two players of ``round_search``; ``seat_order`` then orders each table. With a
  fixed roster at tables of one size it continues a schedule without repeats instead, as long
  as the history follows one (``design_labelling``).
- ``planner``: ``plan_schedule`` plans all rounds of a fixed roster at once: a schedule
  without repeats from finite geometry where one exists (``designs``: affine planes and spaces
  over GF(p), spreads of GF(2)^e, and a doubling that gives 32 players 10 rounds in tables of
  4), otherwise (and for rounds beyond it) the tabu search over the whole schedule of
  ``schedule_search``.
- ``open_table``: ``suggest_open_table`` picks the next table of an open club night (no draw)
  from the waiting players: fewest meetings tonight, then over the season.
- ``methods``: the draws by standings: ``standings_groups`` (tables filled in standings
  order, the leaders together) and ``interval_groups`` (players dealt round the tables,
  1-5-9-13 / 2-6-10-14), ties broken by fewest repeats (``break_ties``); ``uniform_sizes``
  (``sizes``) gives a final's tables of one size.
- ``script``: ``read_script`` reads and checks a seating script (a line per table per round,
  players by their number in the event), one error per faulty line.
- ``quality``: ``quality`` reports the fields an organiser looks at: repeated pairs, the most
  meetings of any pair, repeats from the previous round, players at an off-size table more
  than once.
- ``lower_bound``: ``repeat_lower_bound`` is the fewest repeated pairs any draw of the present
  players could have after the earlier rounds (a min-cost flow per round), what the quality
  report measures a draw against.

Objectives, in strict priority (each level outweighs everything below it):

1. pairs that have already sat together meet again as rarely as possible; a pair that meets for
   the (m+1)-th time costs m·(m+3) (4, 10, 18, ...: one third meeting weighs more than two second
   meetings, three second meetings more than one third), and three times that when the pair sat
   together in the previous round, so a repeat from the previous round weighs most;
2. nobody sits at an off-size table (a size not among the game's best) more often than needed:
   a player who already sat off-size c times costs c for another such seat (this minimises the
   sum of squares of the final counts, so the off-size seats rotate);
3. optionally, members of one club apart (each pair of club mates at a table costs one) and, when
   a ranking is given, players of similar standing together (the rank distance of each pair);
4. seats and first dealers balanced over the rounds: after the search, each table's seat order
   is the one with the fewest earlier turns of its players on those seats, and the first dealer
   is the player with the fewest first deals so far.

Everything is deterministic for a given ``random.Random`` (or integer seed); only
``plan_schedule``'s wall-clock limit can cut a search short on a slow machine.
"""
from __future__ import annotations

from .costs import repeat_cost
from .designs import perfect_schedule
from .history import Draw, DrawTable, MeetingHistory
from .lower_bound import repeat_lower_bound
from .methods import interval_groups, repeat_total, standings_groups
from .open_table import open_table_size, suggest_open_table
from .planner import plan_schedule
from .quality import quality
from .round_draw import draw_round
from .script import ScriptError, ScriptTable, read_script
from .seat_order import seat_tables
from .sizes import GAME_SIZES, SizeRule, mix_key, plan_byes, table_sizes, uniform_sizes

__all__ = [
    "GAME_SIZES",
    "Draw",
    "DrawTable",
    "MeetingHistory",
    "ScriptError",
    "ScriptTable",
    "SizeRule",
    "draw_round",
    "interval_groups",
    "mix_key",
    "open_table_size",
    "perfect_schedule",
    "plan_byes",
    "plan_schedule",
    "quality",
    "read_script",
    "repeat_cost",
    "repeat_lower_bound",
    "repeat_total",
    "seat_tables",
    "standings_groups",
    "suggest_open_table",
    "table_sizes",
    "uniform_sizes",
]
