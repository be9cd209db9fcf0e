"""A club's public page (``/clubs/<slug>/``) and its calendar feed (``/clubs/<slug>/calendar.ics``).

What the public sees of the club, through the one policy (``policy.public()``): its published
events only (upcoming ones in a month calendar and a list, past ones with their winners), its
series that the public sees, and the leaderboard of its members per game (the ratings are of
public results only; players are shown by the names they agreed to, namesakes told apart). The
winners are read from the events' kept standings as the public sees them (held rounds left out),
cached by the event's live version (``tournaments.live.fragment``): rendered once per change,
whatever the number of readers.
"""
from __future__ import annotations

import calendar
import datetime
import re

import icalendar
from django.core.paginator import Paginator
from django.db.models import F
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.dates import WEEKDAYS, WEEKDAYS_ABBR
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games.catalog import GAMES
from ratings.selectors import leaderboard
from tournaments import live, policy
from tournaments.models import Club, Event
from tournaments.standings.selectors import standings_document

PAST_PAGE = 10  # past events a page (``?past=``), each with its winners
LEADERBOARD_ROWS = 10  # a game's leaderboard on the club page: its best members, the rest a link away
FEED_DAYS_BACK = 366  # the feed carries the past year's events and every upcoming one
UPCOMING_ROWS = 50


def _games() -> list[dict]:
    return [{"code": info.code, "name": info.name} for info in GAMES.values()]


def club_events(club: Club):
    """The club's events the public sees (published ones), with their series."""
    return policy.public().events().filter(club=club).select_related("series")


def _month(text: str | None, today: datetime.date) -> datetime.date:
    """The first day of the month asked for in ``?month=YYYY-MM``; this month when absent or not a
    month."""
    match = re.fullmatch(r"(\d{4})-(\d{2})", text or "")
    if match:
        year, month = int(match[1]), int(match[2])
        if 1 <= year <= 9998 and 1 <= month <= 12:
            return datetime.date(year, month, 1)
    return today.replace(day=1)


def month_calendar(events, first: datetime.date, today: datetime.date) -> dict:
    """The month of ``first`` as weeks of days (Monday first), each day with its events, and the
    months before and after."""
    last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
    by_day: dict[datetime.date, list[Event]] = {}
    for event in events.filter(starts_on__gte=first, starts_on__lte=last).order_by("starts_on", "name", "id"):
        by_day.setdefault(event.starts_on, []).append(event)
    weeks = [[{"date": day, "in_month": day.month == first.month, "today": day == today,
               "events": by_day.get(day, []) if day.month == first.month else []}
              for day in week]
             for week in calendar.Calendar(firstweekday=0).monthdatescalendar(first.year, first.month)]
    previous = (first - datetime.timedelta(days=1)).replace(day=1)
    following = last + datetime.timedelta(days=1)
    return {
        "title": formats.date_format(first, "YEAR_MONTH_FORMAT"), "weeks": weeks,
        "weekdays": [{"short": WEEKDAYS_ABBR[day], "long": WEEKDAYS[day]} for day in range(7)],
        "days": [{"date": day, "events": found} for day, found in sorted(by_day.items())],
        "previous": previous.strftime("%Y-%m"), "next": following.strftime("%Y-%m"),
        "previous_title": formats.date_format(previous, "YEAR_MONTH_FORMAT"),
        "next_title": formats.date_format(following, "YEAR_MONTH_FORMAT"),
    }


def event_winners(event: Event) -> list[str]:
    """The names of the event's winners as the public sees them: first in its public standings
    (held rounds left out) with at least one session played. Read from the kept sums."""
    document = standings_document(event, visibility=policy.public(), page=1)
    return [row["name"] for row in document["standings"] if row["rank"] == 1 and row["played"] > 0]


def _winners_html(event: Event) -> str:
    html, _version = live.fragment(
        event.pk, "club-winners", language=get_language(), game=event.game,
        render=lambda: render_to_string("pages/_winners.html", {"winners": event_winners(event)}))
    return mark_safe(html or "")  # rendered by Django's templates, escaped there


def _running(series, today: datetime.date) -> bool:
    return (series.season_from is None or series.season_from <= today) and (
        series.season_to is None or series.season_to >= today)


def _leaderboards(club: Club) -> list[dict]:
    boards = []
    for info in GAMES.values():
        rows = list(leaderboard(game=info.code, club=club.pk)[:LEADERBOARD_ROWS])
        if not rows:
            continue
        names = policy.public().names([row.player_id for row in rows])  # namesakes told apart
        for row in rows:
            row.name = names.get(row.player_id, row.name)
        boards.append({"game": info, "rows": rows,
                       "more": f"{reverse('pages:leaderboard', args=[info.code])}?club={club.pk}"})
    return boards


def _page_number(request, name: str) -> int:
    try:
        return max(1, int(request.GET.get(name, "1")))
    except ValueError:
        return 1


def club_detail(request, slug: str):
    club = get_object_or_404(Club, slug=slug)
    today = timezone.localdate()
    events = club_events(club)
    upcoming = list(events.filter(starts_on__gte=today).order_by("starts_on", "name", "id")[:UPCOMING_ROWS])
    # Past: before today, and those without a date (after the dated ones on every database).
    past_page = Paginator(events.exclude(starts_on__gte=today).order_by(F("starts_on").desc(nulls_last=True),
                                                                        "name", "id"),
                          PAST_PAGE).get_page(_page_number(request, "past"))
    past = [{"event": event, "game_name": GAMES[event.game].name, "winners": _winners_html(event)}
            for event in past_page]
    series = list(policy.public().series().filter(club=club).order_by("-season_from", "name", "id"))
    month = _month(request.GET.get("month"), today)
    return render(request, "pages/club.html", {
        "club": club, "games": _games(), "today": today,
        "calendar": month_calendar(events, month, today),
        "upcoming": [{"event": e, "game_name": GAMES[e.game].name} for e in upcoming],
        "past": past, "past_page": past_page,
        "running": [s for s in series if _running(s, today)],
        "earlier": [s for s in series if not _running(s, today)],
        "leaderboards": _leaderboards(club),
        "feed": request.build_absolute_uri(reverse("pages:club_calendar", args=[club.slug])),
    })


def club_calendar(request, slug: str):
    """The club's events as an iCalendar feed (RFC 5545) that a phone's calendar subscribes to:
    every published event from a year back on, each a whole-day entry with its page's address.
    Unpublished events are never in it."""
    club = get_object_or_404(Club, slug=slug)
    since = timezone.localdate() - datetime.timedelta(days=FEED_DAYS_BACK)
    feed = icalendar.Calendar()
    feed.add("prodid", "-//Stich//Club calendar//EN")
    feed.add("version", "2.0")
    feed.add("calscale", "GREGORIAN")
    feed.add("method", "PUBLISH")
    feed.add("x-wr-calname", club.name)
    feed.add("name", club.name)
    feed.add("refresh-interval", datetime.timedelta(hours=6), parameters={"VALUE": "DURATION"})
    feed.add("x-published-ttl", "PT6H")
    host = request.get_host().split(":")[0] or "stich"
    for event in club_events(club).filter(starts_on__gte=since).order_by("starts_on", "name", "id"):
        entry = icalendar.Event()
        game = GAMES[event.game].name
        entry.add("uid", f"event-{event.pk}@{host}")
        entry.add("dtstamp", event.created_at.astimezone(datetime.timezone.utc))
        entry.add("dtstart", event.starts_on)
        entry.add("dtend", event.starts_on + datetime.timedelta(days=1))
        entry.add("summary", f"{event.name} ({game})")
        details = [game, str(event.get_format_display())]
        if event.series is not None:
            details.append(_("Series: %(name)s") % {"name": event.series.name})
        entry.add("description", " · ".join(details))
        entry.add("categories", [game])
        entry.add("url", request.build_absolute_uri(reverse("pages:event", args=[event.pk])))
        if club.city:
            entry.add("location", club.city)
        entry.add("transp", "TRANSPARENT")
        feed.add_component(entry)
    response = HttpResponse(feed.to_ical(), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{club.slug}.ics"'
    return response
