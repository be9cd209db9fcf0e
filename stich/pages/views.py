"""The public pages: events with their standings, leaderboards per game and player pages.

Server-rendered for a phone at the club. Everything here is public: results are always read with
``policy.public()`` (rounds an organiser holds back are missing from every page, whoever looks), only
published events are shown, and players appear under ``Player.public_name``. The event standings
are the API's own document (``standings_document``), so page and API cannot disagree.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from django.core.paginator import Paginator
from django.db.models import Count, Exists, Prefetch, Q, Window
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from games.catalog import GAMES
from ratings.models import Rating
from ratings.outlook import (
    PAGE_SESSIONS,
    event_upset,
    kept_tables_outlook,
    recent_calibration,
    tables_outlook,
)
from ratings.selectors import displayed, leaderboard, player_history
from ratings.templatetags.chances import outlook_view, percent
from tournaments import live, policy
from tournaments.entry import clock
from tournaments.models import Club, Event, Player, Round, Seat, Session, Table
from tournaments.standings import room
from tournaments.standings.display import (
    METRIC_HELP,
    METRIC_LABELS,
    METRIC_SHORT,
    TABLE_STATE_LABELS,
    hands_text,
    money,
    number,
    progress_text,
)
from tournaments.standings.metrics import METRICS
from tournaments.standings.selectors import (
    SessionResult,
    event_money,
    player_session_results,
    session_results,
    standings_document,
    tables_seats_and_sessions,
)
from tournaments.standings.tables import round_progress

from .charts import ChartPoint, ReliabilityPoint, rating_chart, reliability_chart
from .series import player_series, top_region


def session_word(game: str) -> str:
    # rules/maumau.md plays series of games; Mü and Mit List und Tücke play single games.
    return _("Series") if game == "maumau" else _("Session")


def games() -> list[dict]:
    return [{"code": info.code, "name": info.name} for info in GAMES.values()]


def public_events():
    return policy.public().events().select_related("club")


def home(request):
    events = public_events().order_by("-starts_on", "name", "id")
    series = policy.public().series().select_related("club").order_by("-season_from", "name", "id")
    clubs = Club.objects.order_by("name")
    return render(request, "pages/home.html", {"events": events, "games": games(), "series": series,
                                               "clubs": clubs})


def _page_number(request, name: str = "page") -> int:
    """The page asked for in ``?name=``: 1 when absent or not a positive whole number."""
    try:
        return max(1, int(request.GET.get(name, "1")))
    except ValueError:
        return 1


def standings_context(event: Event, visibility: policy.Visibility | None = None, page: int = 1) -> dict:
    """The event's public standings as the pages show them: the API's own document
    (``standings_document``, so page and API cannot disagree), numbers with at most two decimals,
    players of the same name told apart (tournaments/names.py); long standings a page at a time
    (``page``, past the last: the last), ranks those of the whole standings. ``visibility``: whose
    standings (the public's unless given)."""
    document = standings_document(event, visibility=visibility or policy.public(), page=page, clamp=True)
    metrics = document["metrics"]
    maumau = event.game == "maumau"
    names = {row["player"]: row["name"] for row in document["standings"]}  # namesakes told apart there
    link = player_link()
    standings = [
        {
            "rank": row["rank"], "player_id": row["player"], "url": link(row["player"]), "name": names[row["player"]],
            "played": row["played"],
            "values": [{"name": name, "text": number(row[name])} for name in metrics],
            "cents": row.get("cents"), "money": money(row["cents"]) if maumau else "",
        }
        for row in document["standings"]
    ]
    pages = document["pages"]
    return {
        "event": event, "maumau": maumau, "standings": standings,
        "standings_page": {"number": document["page"], "pages": pages, "count": document["count"],
                           "previous": document["page"] - 1 if document["page"] > 1 else None,
                           "next": document["page"] + 1 if document["page"] < pages else None} if pages > 1 else None,
        "metrics": [
            {"name": name, "label": METRIC_LABELS.get(name, METRICS[name].label if name in METRICS else name),
             "short": METRIC_SHORT.get(name, name)}
            for name in metrics
        ],
        "metric_help": [METRIC_HELP[name] for name in metrics if name in METRIC_HELP],
        "played_label": _("Series played") if maumau else _("Sessions played"),
        "updated": timezone.localtime(),
        "final": _final_context(document),
    }


def _final_context(document: dict) -> dict | None:
    """The final ranking of an event with a final (``standings_document``'s ``final``), numbers as
    people read them; the standings are then the preliminary ranking."""
    final = document.get("final")
    if not final:
        return None
    return {"metric": METRIC_LABELS.get(final["metric"], final["metric"]),
            "rows": [{**row, "final": number(row["final"]), "carried": number(row["carried"]),
                      "points": number(row["points"])} for row in final["standings"]]}


# The event page shows its tables a page at a time (``?tables=``): a league run as one event has
# thousands; twelve a page (a club evening's round), each with its chances.
TABLES_PAGE = 12


def held_seating(event: Event, after: int | None = None) -> list[dict]:
    """The rounds of the event whose results an organiser holds back (numbered above ``after``
    when given), with where everybody sits: tables, seats and the players' public names, nothing
    of their results (the room needs to know where to sit while the results wait). Three queries."""
    rounds = Round.objects.filter(event=event, results_held=True, tables__isnull=False).distinct().order_by("number")
    if after is not None:
        rounds = rounds.filter(number__gt=after)
    rounds = list(rounds.prefetch_related(Prefetch("tables", queryset=Table.objects.order_by("number").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.order_by("position"))))))
    if not rounds:
        return []
    names = policy.public().names({seat.player_id for round_ in rounds for table in round_.tables.all()
                                   for seat in table.seats.all()})
    return [{"number": round_.number, "tables": [
        {"number": table.number, "names": [names.get(seat.player_id, "") for seat in table.seats.all()]}
        for table in round_.tables.all()]} for round_ in rounds]


def rounds_context(event: Event, tables: int = 1, known_names: dict[int, str] | None = None) -> dict:
    """The event's public tables a page at a time (``tables``: the page), each with its sessions'
    totals and its chances, and the upset of the evening among them. ``known_names``: public names
    (namesakes told apart) the caller read already, the standings' (the same rule gives a player the
    same name whatever else is asked with him: tournaments/names.py); only the others are read
    (none when every seated player is among them). A constant number of queries
    whatever the number of rounds, sessions and the players' history: the tables' page (one, with
    the count of the public tables and whether a round is held back with tables; when the page is
    empty, a page past the last, two more: the count, and the last page), their seats and sessions
    (two), the names (one), the ratings the chances read (at most three, none when the cache keeps
    the tables' chances: ``kept_tables_outlook``) and the held rounds' seating (when a round is
    held: three)."""
    shown_rounds = policy.public().rounds()  # built once for the page and the count
    shown = (Table.objects.filter(round__in=shown_rounds, round__event=event).select_related("round")
             .order_by("round__number", "number"))

    # Each table read with the count of them all (a window over the public tables) and whether a
    # round is held back with tables (its seating is read only then).
    shown = shown.annotate(shown_count=Window(Count("pk")),
                           round_held=Exists(Round.objects.filter(event=event, results_held=True, tables__isnull=False)))

    def page_of(number: int) -> list[Table]:
        return list(shown[(number - 1) * TABLES_PAGE:number * TABLES_PAGE])

    shown_tables = page_of(tables)
    if shown_tables:
        count, any_held = shown_tables[0].shown_count, shown_tables[0].round_held
    else:  # no public table, or a page past the last (then the last page is read)
        counts = Table.objects.filter(round__event=event).aggregate(
            shown=Count("pk", filter=Q(round__in=shown_rounds)),
            held=Count("round", distinct=True, filter=Q(round__results_held=True)))
        count, any_held = counts["shown"], counts["held"] > 0
        shown_tables = page_of(-(-count // TABLES_PAGE)) if count else []
    pages = max(1, -(-count // TABLES_PAGE))
    shown_page = min(tables, pages)
    seats, table_sessions = tables_seats_and_sessions(shown_tables)  # plain rows, not models
    # The sessions of a table the public sees are the public's (the policy's sessions are those of
    # its rounds): read with the tables, not again (``session_results``' results, built here).
    read = []  # the sessions not abandoned, in the order of the tables and their numbers
    seated = {table_id: [player for _, player in pairs] for table_id, pairs in seats.items()}
    for table in shown_tables:
        for session in table_sessions[table.pk]:
            if session.status != Session.Status.ABANDONED:
                read.append(SessionResult(session, seated[table.pk], list(session.totals) or [0] * len(seated[table.pk]),
                                          session.hand_count))
    results = {result.session.pk: result for result in read}
    wanted = {player for players in seated.values() for player in players}
    names = {player: known_names[player] for player in wanted & known_names.keys()} if known_names else {}
    if len(names) < len(wanted):
        names.update(policy.public().names(wanted - names.keys()))
    link = player_link()
    hands_texts: dict[int, str] = {}
    status_texts = {status: str(label) for status, label in Session.Status.choices}  # not per session

    round_views = []
    for table in shown_tables:
        if not round_views or round_views[-1]["round"].pk != table.round_id:
            round_views.append({"round": table.round, "tables": []})
        sessions = []
        for session in table_sessions[table.pk]:
            result = results.get(session.pk)
            hands = result.hands if result else 0
            if hands not in hands_texts:
                hands_texts[hands] = hands_text(event.game, hands)
            sessions.append({
                "session": session, "status": status_texts.get(session.status, session.status), "abandoned": result is None,
                "hands": hands, "hands_text": hands_texts[hands], "totals": result.totals if result else None,
            })
        rows = [
            {"player_id": player, "url": link(player), "name": names[player], "totals": [
                number(s["totals"][index]) if s["totals"] is not None and index < len(s["totals"]) else "–"
                for s in sessions
            ]}
            for index, player in enumerate(seated[table.pk])
        ]
        round_views[-1]["tables"].append({"table": table, "sessions": sessions, "rows": rows})
    outlooks = kept_tables_outlook(shown_tables, game=event.game, ratings_key=live.ratings_key(event.game),
                                   seats=seats, sessions=table_sessions)
    for r in round_views:
        for t in r["tables"]:
            t["outlook"] = outlook_view(outlooks.get(t["table"].pk), [row["name"] for row in t["rows"]])
    tables_page = {"number": shown_page, "pages": pages, "previous": shown_page - 1 if shown_page > 1 else None,
                   "next": shown_page + 1 if shown_page < pages else None} if pages > 1 else None
    maumau = event.game == "maumau"
    table_numbers = {table.pk: table.number for table in shown_tables}
    return {"rounds": round_views, "session_word": session_word(event.game), "tables_page": tables_page,
            "upset": upset_view(shown_tables, outlooks, names, table_sessions),
            "held": held_seating(event) if any_held else [],
            "event": event, "maumau": maumau,
            "series": money_views(event, read, names, link, table_numbers) if maumau else []}


_PLACEHOLDER = 2_147_483_647


def player_link():
    """``link(player_id)``: the player's page address, reversed once and the id put in (a page of
    standings links a hundred players: ``{% url %}`` per row was a tenth of its rendering)."""
    head, _, tail = reverse("pages:player", args=[_PLACEHOLDER]).partition(str(_PLACEHOLDER))
    return lambda player_id: f"{head}{player_id}{tail}"


# The public pages' live regions, as ``tournaments.live`` renders them once per version and language
# (``settings.LIVE_FRAGMENTS``): each takes the event's id and the region's page, and answers None
# when the public does not see the event.

def _public_event(event_id: int) -> Event | None:
    return public_events().select_related("series").filter(pk=event_id).first()


def _render_screen(event: Event, page: int) -> str:
    return render_to_string("pages/_screen.html", screen_context(event, page=page))


def _render_standings(event: Event, page: int, names: dict[int, str] | None = None) -> str:
    """The standings region; ``names``, when given, gets its players' public names (for the
    tables region rendered after it in the same request: ``_render_rounds``)."""
    context = standings_context(event, page=page)
    if names is not None:
        names.update((row["player_id"], row["name"]) for row in context["standings"])
    return render_to_string("pages/_standings.html", context)


def _render_rounds(event: Event, page: int, names: dict[int, str] | None = None) -> str:
    return render_to_string("pages/_rounds.html", rounds_context(event, tables=page, known_names=names))


RENDERERS = {"screen": _render_screen, "standings": _render_standings, "rounds": _render_rounds}


def screen_fragment(event_id: int, page: int = 1) -> str | None:
    event = _public_event(event_id)
    return None if event is None else _render_screen(event, page)


def standings_fragment(event_id: int, page: int = 1) -> str | None:
    event = _public_event(event_id)
    return None if event is None else _render_standings(event, page)


def rounds_fragment(event_id: int, page: int = 1) -> str | None:
    event = _public_event(event_id)
    return None if event is None else _render_rounds(event, page)


def _fragment(request, event: Event, name: str, page: int, version: int | None = None) -> tuple[str, int | None]:
    """A live region of the event as the public sees it, from the cache of its version
    (``tournaments.live.fragment``): rendered once per change and language for every reader
    (here with the event already read). ``version``: the event's, when the caller read it."""
    html, version = live.fragment(event.pk, name, language=get_language(), game=event.game, page=page,
                                  version=version, render=lambda: RENDERERS[name](event, page))
    return mark_safe(html or ""), version  # rendered by Django's templates, escaped there


def _fragment_response(request, event: Event, name: str, page: int) -> HttpResponse:
    html, version = _fragment(request, event, name, page)
    response = HttpResponse(html)
    if version is not None:
        response["X-Live-Version"] = str(version)
    return response


def event_detail(request, pk: int):
    """The event page: its standings and its tables are the live regions, read from the cache of
    the event's version (rendered once per change and language, whoever reads them); the Maumau
    money is read here."""
    event = get_object_or_404(public_events(), pk=pk)
    page, tables = _page_number(request), _page_number(request, "tables")
    fragment = request.GET.get("fragment")
    if fragment == "standings":
        return _fragment_response(request, event, "standings", page)
    if fragment == "rounds":
        return _fragment_response(request, event, "rounds", tables)
    maumau = event.game == "maumau"
    # The event's version and the ratings' count read once for both regions, and both regions read
    # from the cache in one round trip (rendered, each, when missing).
    state = live.event_state(event.pk, event.game)
    # When both regions are rendered here (the first reader after a change), the tables take their
    # players' names from the standings rendered before them.
    names: dict[int, str] = {}
    standings_html, rounds_html = (mark_safe(html or "") for html in live.fragments(  # escaped by the templates
        event.pk, [("standings", page, lambda: _render_standings(event, page, names)),
                   ("rounds", tables, lambda: _render_rounds(event, tables, names))],
        language=get_language(), game=event.game, state=state))
    version = state[0]
    return render(request, "pages/event.html", {
        "event": event, "maumau": maumau, "game_name": GAMES[event.game].name, "games": games(), "standings_html": standings_html, "rounds_html": rounds_html, "live_version": version,
        "standings_page_number": page if page > 1 else None, "tables_page_number": tables if tables > 1 else None,
    })


def money_views(event: Event, read: list, names: dict, link, table_numbers: dict) -> list[dict]:
    """The Maumau transfers of the sessions read (``read``: those of the tables shown), per series
    (``link``: the players' page addresses, ``player_link``)."""
    money_document = event_money(event, visibility=policy.public(), results=read)
    return [{
        "session": series["session"], "round": series["round"], "table": table_numbers.get(series["table"]),
        "transfers": [
            {"id": t["id"], "payer_url": link(t["from"]), "payee_url": link(t["to"]),
             "payer_name": names.get(t["from"]), "payee_name": names.get(t["to"]),
             "money": money(t["cents"]), "cents": t["cents"], "paid": t["paid"]}
            for t in series["transfers"]
        ],
    } for series in money_document["series"]]


def upset_view(tables: list, outlooks: dict, names: dict, sessions: dict | None = None) -> dict | None:
    """The upset of the evening: of the finished sessions shown, the winner who had the smallest
    chance before his session (when another player was the favourite). ``sessions``: the tables'
    sessions when the caller read them (``event_upset``)."""
    upset = event_upset(tables, outlooks, sessions)
    if upset is None:
        return None
    return {"name": names.get(upset.player_id, "?"), "player": upset.player_id, "percent": percent(upset.win),
            "round": upset.round_number, "table": upset.table_number, "win": upset.win}


def round_overview(event: Event, names: dict | None = None, numbers: list[int] | None = None) -> dict | None:
    """The room screen's round: the latest public round with tables, each table's players by their
    public names (namesakes told apart) with their chances. ``names``: those names when the caller
    read them already; ``numbers``: only these tables (the screen shows the chances of the tables
    not started only: the others' are neither read nor computed)."""
    round_ = policy.public().rounds().filter(event=event, tables__isnull=False).order_by("-number").first()
    if round_ is None:
        return None
    tables = round_.tables.all() if numbers is None else round_.tables.filter(number__in=numbers)
    tables = list(tables.select_related("round__event").order_by("number").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.order_by("position"))))
    outlooks = tables_outlook(tables, game=event.game)
    if names is None:
        names = policy.public().names([seat.player_id for table in tables for seat in table.seats.all()])
    return {"round": round_, "tables": [
        {"table": table,
         "outlook": outlook_view(outlooks.get(table.pk), [names[seat.player_id] for seat in table.seats.all()])}
        for table in tables
    ]}


def _move_view(move: int | None) -> dict:
    """A change of rank as the screen shows it: an arrow and the places, and the same in words."""
    if move is None:
        return {"kind": "new", "text": _("new"), "words": _("new in the standings")}
    if move > 0:
        return {"kind": "up", "text": f"▲{move}",
                "words": ngettext("up %(n)s place", "up %(n)s places", move) % {"n": move}}
    if move < 0:
        return {"kind": "down", "text": f"▼{-move}",
                "words": ngettext("down %(n)s place", "down %(n)s places", -move) % {"n": -move}}
    return {"kind": "same", "text": "=", "words": _("same place")}


def _addition(name: str) -> tuple[str, str] | None:
    """A namesake's label split into his name and what tells him apart ("Max Müller (Köln)": the
    room screen sets the addition on a line of its own, in smaller type), or None."""
    base, bracket, addition = name.rpartition(" (")
    return (base, bracket.strip() + addition) if bracket and base and name.endswith(")") else None


def screen_context(event: Event, page: int = 1) -> dict:
    """Everything the room screen shows, as the public sees it (held rounds missing): the round's
    progress table by table, the standings with the change since the previous round, the latest
    finished sessions with their winners (the top of the series the event counts for is a region
    of the series: ``series.top_region``)."""
    public = policy.public()
    read = session_results(event, visibility=public)
    context = standings_context(event, page=page)
    # With a final the standings are the preliminary ranking, which the final's rounds do not
    # move: no change since the previous round is shown.
    previous, moves = room.standings_moves(event, read) if context["final"] is None else (None, {})
    if previous is not None:
        for row in context["standings"]:
            row["move"] = _move_view(moves.get(row["player_id"]))
    for row in context["standings"]:
        row["addition"] = _addition(row["name"])
    progress = round_progress(event, visibility=public)
    clock_round = clock.latest_with_clock(public.rounds().filter(event=event))
    latest = room.latest_results(read)
    # The standings rows carry their players' public names already (the same rule, whatever else
    # is asked with them: tournaments/names.py); only the others are read.
    names = {row["player_id"]: row["name"] for row in context["standings"]}
    others = {p for table in (progress.tables if progress else []) for p in table.players}
    others.update(p for session in latest for p in session.players)
    others.difference_update(names)
    if others:
        names.update(public.names(others))

    tables = []
    if progress is not None:
        # The chances are shown for the tables not started only: none to compute once all have begun.
        waiting = [table.number for table in progress.tables if not table.hands]
        overview = round_overview(event, names, numbers=waiting) if waiting else None
        outlooks = {t["table"].number: t["outlook"] for t in overview["tables"]} if overview else {}
        for table in progress.tables:
            outlook = outlooks.get(table.number)
            chances = {seat["player"]: seat for seat in outlook["seats"]} if outlook else {}
            tables.append({
                "number": table.number, "state": table.state, "label": str(TABLE_STATE_LABELS[table.state]),
                "count": progress_text(event.game, table),
                "seats": [{"name": names.get(seat.player, ""), "total": number(seat.total) if table.hands else None,
                           "chance": None if table.hands or seat.player not in chances else chances[seat.player]["percent"],
                           "provisional": not table.hands and chances.get(seat.player, {}).get("provisional", False)}
                          for seat in table.seats],
            })
    # A newer round whose results are held back still shows where everybody sits.
    held = held_seating(event, after=progress.round_number if progress is not None else None)
    return {
        **context, "game_name": GAMES[event.game].name, "screen": True, "moves": previous is not None,
        "previous_round": previous, "held": held[-1] if held else None,
        "clock_round": clock_round,
        "progress": progress and {"round": progress.round_number, "finished": progress.finished,
                                  "total": len(progress.tables), "tables": tables,
                                  "chances": any(seat["chance"] for table in tables for seat in table["seats"]),
                                  "provisional": any(seat["provisional"] for table in tables for seat in table["seats"])},
        "latest": [
            {"round": s.round_number, "table": s.table_number,
             "winners": [names.get(p, "") for p in s.winners], "best": number(max(s.totals)),
             "others": [{"name": names.get(p, ""), "total": number(t)}
                        for p, t in sorted(zip(s.players, s.totals), key=lambda pt: -pt[1]) if p not in s.winners]}
            for s in latest
        ],
    }


def event_screen(request, pk: int):
    """The room screen for a projector across the room: the round's progress, the standings with
    the change since the previous round, the latest results and the series' top, in large type,
    kept up to date by server push (static/stich/live.js) without reloading: the whole screen but
    the series' top is one fragment (``?fragment=screen``), rendered once per change and language
    and sent to every screen over its socket (``tournaments.live``), or read from the same cache
    when asked for; the series' top is the series' (``series.top_region``: rendered once per
    change of the series for the screens of all its events)."""
    event = get_object_or_404(public_events().select_related("club", "series"), pk=pk)
    page = _page_number(request)
    if request.GET.get("fragment") in ("screen", "standings"):
        return _fragment_response(request, event, "screen", page)
    html, version = _fragment(request, event, "screen", page)
    return render(request, "pages/screen.html", {"event": event, "game_name": GAMES[event.game].name,
                                                 "screen_html": html, "live_version": version, "page": page,
                                                 "series_top": top_region(event.series_id),
                                                 # the clock counts down against it (static/stich/clock.js)
                                                 "server_now": int(timezone.now().timestamp() * 1000)})


def standings_print(request, pk: int):
    """The standings on paper (A4, the print stylesheet): the public's, or for the event's
    organisers with the rounds they hold back, as the console shows them."""
    visibility = policy.visibility(request.user)
    event = get_object_or_404(visibility.events().select_related("club"), pk=pk)
    context = standings_context(event, visibility=visibility, page=_page_number(request))
    return render(request, "pages/standings_print.html", {
        **context, "game_name": GAMES[event.game].name, "screen": True,
        "held": visibility.organises(event) and event.rounds.filter(results_held=True).exists(),
    })


def leaderboard_page(request, game: str):
    if game not in GAMES:
        raise Http404(_("No such game."))
    clubs = list(Club.objects.order_by("name"))
    club = None
    try:
        wanted = int(request.GET.get("club", ""))
    except ValueError:
        wanted = None
    if wanted is not None:
        club = next((c for c in clubs if c.pk == wanted), None)
        if club is None:
            raise Http404(_("No such club."))
    # A page of the board at a time: two queries (the count and the page), whatever its size.
    rows = Paginator(leaderboard(game=game, club=club.pk if club else None), LEADERBOARD_PAGE)
    rows = rows.get_page(request.GET.get("page"))
    shown = policy.public().names([row.player_id for row in rows])  # namesakes told apart
    for row in rows:
        row.name = shown.get(row.player_id, row.name)
    return render(request, "pages/leaderboard.html", {
        "game": GAMES[game], "games": games(), "clubs": clubs, "club": club, "rows": rows,
    })


LEADERBOARD_PAGE = 100


def _local_date(moment) -> str:
    return formats.date_format(timezone.localtime(moment), "SHORT_DATE_FORMAT")


def player_detail(request, pk: int):
    player = get_object_or_404(Player, pk=pk)
    clubs = list(player.clubs.order_by("name")) if not player.anonymised else []
    shown_name = policy.public().names([player])[player.pk]  # namesakes told apart

    ratings = []
    for rating in sorted(Rating.objects.filter(player=player), key=lambda r: list(GAMES).index(r.game)):
        history = player_history(player=player.pk, game=rating.game)
        name = GAMES[rating.game].name
        chart = rating_chart(
            [ChartPoint(_local_date(datetime.fromisoformat(point["finished_at"])), point["rating_after"])
             for point in history],
            title=_("Rating history of %(player)s in %(game)s") % {"player": shown_name, "game": name},
            x_label=_("Rating events"), y_label=_("Rating"),
            attributes={"data-game": rating.game, "data-points": str(len(history))},
            start=history[0]["rating_before"] if history else None,
        )
        ratings.append({
            "game": rating.game, "name": name, "rating": displayed(rating.mu, rating.sigma),
            "sessions": rating.sessions, "events": len(history), "chart": mark_safe(chart),  # escaped in charts.py
        })

    # Sessions of released rounds of published events, grouped by event (newest event first).
    events = list(
        public_events().filter(rounds__in=policy.public().rounds(), rounds__tables__seats__player=player)
        .distinct().order_by("-starts_on", "name", "id")
    )
    # His own sessions only (from his seats), whatever else the events hold.
    seated: dict[int, list] = defaultdict(list)
    for result in player_session_results(player, visibility=policy.public()):
        seat = result.players.index(player.pk)
        own = result.totals[seat] if result.hands else None
        place = 1 + sum(total > own for total in result.totals) if own is not None else None
        session = result.session
        seated[session.table.round.event_id].append({
            "session": session, "round": session.table.round.number, "table": session.table.number,
            "status": session.get_status_display(), "hands": result.hands,
            "total": number(own) if own is not None else "–",
            "place": place, "of": len(result.players),
        })
    event_views = [
        {"event": event, "game_name": GAMES[event.game].name, "sessions": seated[event.pk],
         "session_word": session_word(event.game)}
        for event in events
    ]
    return render(request, "pages/player.html", {
        "player": player, "shown_name": shown_name, "clubs": clubs, "ratings": ratings, "events": event_views,
        "games": games(), "series": player_series(player),
    })


def calibration_page(request):
    """How well the win chances have predicted the winners: per game, the latest sessions of the
    pool scored against the point estimate without sigma and a coin (uniform), and a calibration
    plot (predicted chance against observed win rate)."""
    views = []
    labels = {"chances": _("Win chances"), "model": _("Win chances, the model's own scale"),
              "point": _("Point estimate without uncertainty"),
              "openskill": _("Point estimate, openskill's scale"), "uniform": _("Everybody equal (1/n)")}
    for info in GAMES.values():
        report = recent_calibration(info.code)
        if report is None or report.sessions == 0:
            views.append({"game": info, "report": None})
            continue
        chart = reliability_chart(
            [ReliabilityPoint(b.predicted, b.observed, b.error, b.count) for b in report.bins],
            title=_("Calibration of the win chances in %(game)s") % {"game": info.name},
            x_label=_("Predicted chance (%)"), y_label=_("Observed wins (%)"),
        )
        views.append({
            "game": info, "report": report, "chart": mark_safe(chart),  # escaped in charts.py
            "scores": [{"label": labels[m], "method": m, "log_loss": f"{s.log_loss:.3f}", "brier": f"{s.brier:.3f}"}
                       for m, s in report.scores.items()],
            "bins": [{"range": f"{round(100 * b.low)}–{round(100 * b.high)} %", "count": b.count,
                      "predicted": f"{100 * b.predicted:.1f}", "observed": f"{100 * b.observed:.1f}"}
                     for b in report.bins if b.count],
        })
    return render(request, "pages/calibration.html", {"games_views": views, "games": games(),
                                                      "sessions": PAGE_SESSIONS})
