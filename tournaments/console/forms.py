"""Forms of the console: every option says in words what it does (the organiser reads them on a
phone at the club, not the rules digest)."""
from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from games.catalog import GAME_CHOICES, GAMES
from games.parsers import read_json
from games.refusals import Reason, Unreadable

from ..models import EVENT_OPTION_BOUNDS, ClockRule
from ..services import final_size_allowed

METRIC_CHOICES = [
    ("placement", _("Placement points: 1 for first place at a table, 0 for last, shared on ties, summed")),
    ("average_placement", _("Placement points per session: fair when players played different numbers")),
    ("total", _("Total: the points of the game added up (Maumau: minus points, negated)")),
    ("wins", _("Wins: sessions finished first at the table (shared first places count)")),
    ("played", _("Sessions played")),
]


# The options that belong to one game; the form shows them (and the services get them) only for it.
GAME_OPTIONS = {
    "mu": ("mu_target_score", "mu_fixed_deals"),
    "maumau": ("maumau_games_per_series", "maumau_stake_cents"),
}


class DateInput(forms.DateInput):
    """A browser's date picker (``<input type="date">``). Its value must be ISO 8601
    (``2026-12-05``) whatever the page's language: a browser shows a localized value such as
    ``05/12/2026`` as empty and posts it empty, so saving the form would erase the date. What is
    typed in comes back as ISO too, which the field always reads."""

    input_type = "date"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%d")


def _bounds(name: str) -> dict:
    """The model's range of an event option (tournaments.models.EVENT_OPTION_BOUNDS)."""
    low, high = EVENT_OPTION_BOUNDS[name]
    return {"min_value": low, "max_value": high}


class EventForm(forms.Form):
    club = forms.ModelChoiceField(queryset=None, label=_("Club"), empty_label=None,
                                  help_text=_("Its members can be seated; its organisers run the event too."))
    name = forms.CharField(label=_("Name"), max_length=160)
    game = forms.ChoiceField(label=_("Game"), choices=GAME_CHOICES, initial=GAME_CHOICES[0][0])
    starts_on = forms.DateField(label=_("Date"), required=False, widget=DateInput())
    confirm_hands = forms.BooleanField(
        label=_("A second player confirms each hand"), required=False,
        help_text=_("A hand entered at a table counts only once another player of the table has confirmed it "
                    "on the score sheet; a player may dispute it instead, and you decide."))
    format = forms.ChoiceField(
        label=_("Format"), initial="rounds", widget=forms.RadioSelect, required=False,
        choices=[("rounds", _("Rounds with a draw: everybody plays each round at the table the draw gives")),
                 ("open", _("Open club night: no draw; open a table whenever enough players are free"))],
        help_text=_("Fixed once the first round or table exists."))
    mu_target_score = forms.IntegerField(
        label=_("Mü: target score"), **_bounds("mu_target_score"), initial=200, required=False,
        help_text=_("A Mü game ends after the deal in which a player's total reaches this score."))
    mu_fixed_deals = forms.IntegerField(
        label=_("Mü: fixed number of deals"), **_bounds("mu_fixed_deals"), required=False,
        help_text=_("Leave empty to play to the target score; fill in to end every game after this many deals "
                    "instead (every table then plays the same number of deals)."))
    maumau_games_per_series = forms.IntegerField(
        label=_("Maumau: games per series"), **_bounds("maumau_games_per_series"), initial=8, required=False,
        help_text=_("A table plays this many games; then the series is settled in money."))
    maumau_stake_cents = forms.IntegerField(
        label=_("Maumau: stake in cents per minus point"), **_bounds("maumau_stake_cents"), initial=10, required=False,
        help_text=_("After a series every player settles his minus points against the others at this stake "
                    "(10 = ten cents a point)."))
    place = forms.CharField(label=_("Place"), max_length=200, required=False,
                            help_text=_("Where it is played: shown on the registration page."))
    registration_open = forms.BooleanField(
        label=_("Take registrations by link"), required=False,
        help_text=_("The event's registration page takes registrations (no account needed); you confirm "
                    "each one. Publish the event so that the link works for everyone."))
    capacity = forms.IntegerField(
        label=_("Places"), **_bounds("capacity"), required=False,
        help_text=_("Registrations past this number wait in line and move up when someone withdraws. "
                    "Leave empty for no limit."))
    clock_rule = forms.ChoiceField(
        label=_("When a round's time is up"), choices=ClockRule.choices, initial=ClockRule.FINISH_DEAL, required=False,
        help_text=_("What the score sheets tell the tables when the round's clock runs out."))
    metric_1 = forms.ChoiceField(label=_("Rank players by"), choices=METRIC_CHOICES, initial="placement")
    metric_2 = forms.ChoiceField(label=_("then, on a tie, by"), required=False, initial="total",
                                 choices=[("", _("nothing more"))] + METRIC_CHOICES)
    metric_3 = forms.ChoiceField(label=_("then by"), required=False, initial="wins",
                                 choices=[("", _("nothing more"))] + METRIC_CHOICES)
    final_size = forms.IntegerField(
        label=_("Finalists"), min_value=1, max_value=1000, required=False,
        help_text=_("Leave empty for no final. Otherwise the top players of the preliminary rounds (this many: "
                    "a multiple of a table size, e.g. 4 for one table of four) play the final rounds; players "
                    "level on every ranking measure at the cut: the lower start number goes through."))
    final_carry = forms.ChoiceField(
        label=_("Points carried into the final"), initial="none", required=False,
        choices=[("none", _("None: the final alone decides")),
                 ("half", _("Half of the preliminary points (kept exactly, e.g. 3.5)")),
                 ("all", _("All of the preliminary points"))],
        help_text=_("The finalists are ranked by their points in the final (the first ranking measure) plus "
                    "this share of their preliminary points; then by the final's other measures, then by the "
                    "preliminary ranking."))

    def __init__(self, *args, clubs, locked_game: bool = False, locked_format: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["club"].queryset = clubs
        if locked_game:
            self.fields["game"].disabled = True
            self.fields["game"].help_text = _("Tables are set: the game can no longer change.")
        if locked_format:
            # services.event_update refuses a change of format once rounds exist (has_rounds).
            self.fields["format"].disabled = True

    @classmethod
    def initial_for(cls, event) -> dict:
        metrics = [name for name in event.standings_metrics.split(",") if name] + ["", ""]
        return {
            "club": event.club_id, "name": event.name, "game": event.game, "starts_on": event.starts_on,
            "confirm_hands": event.confirm_hands,
            "format": event.format,
            "mu_target_score": event.mu_target_score, "mu_fixed_deals": event.mu_fixed_deals,
            "maumau_games_per_series": event.maumau_games_per_series,
            "maumau_stake_cents": event.maumau_stake_cents,
            "metric_1": metrics[0], "metric_2": metrics[1], "metric_3": metrics[2],
            "final_size": event.final_size, "final_carry": event.final_carry,
            "place": event.place, "registration_open": event.registration_open, "capacity": event.capacity,
            "clock_rule": event.clock_rule,
        }

    def clean(self):
        data = super().clean()
        metrics = [data.get(f"metric_{i}") for i in (1, 2, 3)]
        chosen = [m for m in metrics if m]
        if len(set(chosen)) != len(chosen):
            raise forms.ValidationError(_("Choose each way of ranking only once."))
        data["standings_metrics"] = ",".join(chosen)
        # Only the chosen game's options are needed (and kept): the others' fields are ignored.
        for name in GAME_OPTIONS.get(data.get("game"), ()):
            if data.get(name) is None and name != "mu_fixed_deals":
                self.add_error(name, forms.Field.default_error_messages["required"])
        size, game = data.get("final_size"), data.get("game")
        if size and game and not final_size_allowed(game, size):
            self.add_error("final_size", _("The finalists must fill tables of one size the game is played with "
                                           "(a multiple of %(sizes)s).") % {"sizes": "/".join(
                                               str(k) for k in range(GAMES[game].min_players,
                                                                     GAMES[game].max_players + 1))})
        return data

    def options(self) -> dict:
        """The event's fields as the services take them."""
        data = self.cleaned_data
        return {
            "name": data["name"], "game": data["game"], "starts_on": data["starts_on"],
            "confirm_hands": data["confirm_hands"], "standings_metrics": data["standings_metrics"],
            # The format as chosen; a form posted without one (no radio ticked) leaves it as it
            # is: "rounds" for a new event (the model's default), unchanged for an edit.
            **({"format": data["format"]} if data.get("format") else {}),
            **{name: data[name] for name in GAME_OPTIONS.get(data["game"], ())},
            "final_size": data.get("final_size"), "final_carry": data.get("final_carry") or "none",
            "place": data["place"], "registration_open": data["registration_open"], "capacity": data["capacity"],
            # Not posted (a form of before the clock): left as it is.
            **({"clock_rule": data["clock_rule"]} if data.get("clock_rule") else {}),
        }


class PlayerForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    club = forms.ModelChoiceField(queryset=None, label=_("Club"), empty_label=None)
    initials_only = forms.BooleanField(
        label=_("Show only initials in public"), required=False,
        help_text=_("Rankings and public pages show “A. B.”; organisers still see the name."))
    distinction = forms.CharField(
        label=_("Told apart by"), max_length=40, required=False,
        help_text=_("Shown in brackets beside the name wherever another player has the same name: a "
                    "nickname, a middle initial, the town."))
    check_in = forms.BooleanField(label=_("Present tonight"), required=False, initial=True)
    confirm_duplicate = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, clubs, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["club"].queryset = clubs


class DistinctionForm(forms.Form):
    distinction = forms.CharField(label=_("Told apart by"), max_length=40, required=False)


class OrganiserForm(forms.Form):
    username = forms.CharField(label=_("User name"), max_length=150,
                               help_text=_("The account of the person who helps to run this event."))


class ReasonForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=2000,
                             widget=forms.TextInput(attrs={"placeholder": _("What happened, for the record")}))


class CorrectForm(ReasonForm):
    record = forms.CharField(label=_("Corrected record (JSON)"), widget=forms.Textarea(attrs={"rows": 6}),
                             help_text=_("The hand as the table should have entered it; it is checked like a new "
                                         "submission against the hands before it."))

    def clean_record(self):
        # The API's reader: its depth limit and its refusal of text the database cannot store.
        try:
            return read_json(self.cleaned_data["record"])
        except Unreadable as error:
            if error.reason is Reason.PARSE_ERROR:
                raise forms.ValidationError(_("This is not valid JSON: %(error)s") % {"error": error}) from None
            raise forms.ValidationError(_("This record cannot be taken (%(code)s at %(path)s): %(error)s")
                                        % {"code": error.reason, "path": error.path or "/", "error": error}) from None


class PlanForm(forms.Form):
    rounds = forms.IntegerField(label=_("Rounds to plan"), min_value=1, max_value=20, initial=3)


METHOD_CHOICES = [
    ("varied", _("Varied: players who have met before are kept apart (fewest repeat meetings)")),
    ("standings", _("By standings: the top players together, table 1 the leaders")),
    ("interval", _("Interval: every table gets a spread of the standings (1-5-9-13, 2-6-10-14 …)")),
    ("script", _("Seating script: the tables written in the event's script for this round")),
]


class DrawForm(forms.Form):
    method = forms.ChoiceField(label=_("How to seat"), choices=METHOD_CHOICES, initial="varied")


class ScriptForm(forms.Form):
    """A seating script typed in or uploaded as a file (CSV or text); the file wins when given."""

    text = forms.CharField(label=_("Seating script"), required=False, max_length=200_000,
                           widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
                           help_text=_("One line per table per round: the round, the table, then the players' "
                                       "numbers, separated by commas, semicolons or spaces. Example: 1, 1, 1, 2, 3, 4"))
    file = forms.FileField(label=_("or upload a file (CSV or text)"), required=False)

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload is not None:
            if upload.size > 200_000:
                raise forms.ValidationError(_("The file is too large for a seating script."))
            raw = upload.read()
            for encoding in ("utf-8-sig", "cp1252"):  # what spreadsheets save in German and Finnish locales
                try:
                    data["text"] = raw.decode(encoding)
                    break
                except UnicodeDecodeError:
                    continue
        if not (data.get("text") or "").strip():
            raise forms.ValidationError(_("Type the script in or choose a file."))
        return data
class MatchForm(forms.Form):
    """Match a registration: an existing player of the club, or a new one by the registered name."""

    player = forms.ModelChoiceField(queryset=None, label=_("Player"), required=False,
                                    empty_label=_("A new player by this name"))
    confirm_duplicate = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, players, names=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player"].queryset = players
        if names is not None:  # namesakes told apart (tournaments/names.py)
            self.fields["player"].label_from_instance = lambda player: names.get(player.pk, player.name)


class ImportForm(forms.Form):
    file = forms.FileField(label=_("CSV file"), help_text=_(
        "The first line names the columns: Name (needed), Club, Told apart by, Initials only. Separated by ; or , "
        "as your spreadsheet saves it, in UTF-8 or Windows encoding."))


class ClockForm(forms.Form):
    action = forms.ChoiceField(choices=[(a, a) for a in ("set", "start", "pause", "resume", "extend", "end")],
                               widget=forms.HiddenInput)
    minutes = forms.IntegerField(label=_("Minutes"), min_value=1, max_value=24 * 60, required=False)
