"""Forms: the organiser's game set-up and tools, and the player's notecard."""

from __future__ import annotations

import re
import zoneinfo
from functools import cache, lru_cache
from typing import Any, ClassVar, cast

from babel.core import get_global
from crispy_forms.helper import FormHelper
from crispy_forms.layout import Fieldset, Layout, Submit
from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.choices import BaseChoiceIterator
from django.utils.functional import Promise
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from werewolf import engine, kept_words
from werewolf.engine import grammar, rulesets

from . import validators
from .models import SeatPolicy
from .services import Seating
from .templatetags.werewolf import own as own_templates
from .templatetags.werewolf import role as role_filter

_LINE = re.compile(r"^\s*(?P<name>[^<>,;]+?)\s*(?:[<,;]\s*(?P<email>[^<>\s,;]+)\s*>?)?\s*$")


def ruleset_choices() -> list[tuple[str, str]]:
    """Every ruleset, as the New game form and the print page offer them (`engine.listed`),
    each named by its own template (rulesets/<family>/games/edition.html), in the language
    of the request."""
    return [
        (ruleset, words(own_templates(ruleset, "games/edition.html"), {"ruleset": ruleset}))
        for ruleset in engine.listed()
    ]


COMMON_FIELDS = (
    "name",
    "ruleset",
    "players",
    "night_minutes",
    "day_minutes",
    "timezone",
    "language",
    "seating",
    "dealing",
    "early_resolution",
    "public_square",
    "signup",
    "signup_limit",
)
"""The New game form's fields of every game; each family's options follow (RULESET_FIELDS)."""


def families() -> tuple[str, ...]:
    """The families of rulesets, in the order the New game form lists them: each family's
    options are one group of the form's fields, shared by its editions."""
    return tuple(dict.fromkeys(engine.capabilities(ruleset).family for ruleset in engine.listed()))


def family(ruleset: str) -> str:
    """The options group a ruleset's fields are in: its family's (both Lupusburgs share one)."""
    return engine.capabilities(ruleset).family


def members(group: str) -> tuple[str, ...]:
    """The rulesets whose options are a group of the form's fields: a family's editions."""
    return tuple(ruleset for ruleset in engine.listed() if family(ruleset) == group)


def prefix(group: str) -> str:
    """What a family's option fields are named with: nothing for the first family the form
    lists (its fields were the form's only options once, and keep their names), the
    family and an underscore for the others (`tabula_first_night`)."""
    return "" if group == families()[0] else f"{group}_"


def legend(group: str) -> str:
    """The heading of a family's options on the New game form, in its own words
    (rulesets/<family>/games/options_legend.html)."""
    return words(own_templates(members(group)[0], "games/options_legend.html"), {"ruleset": group})


def ballot_minutes(day_minutes: int) -> int:
    """A short step's default length: a third of the day, at least ten minutes (never
    longer than the day itself)."""
    return min(day_minutes, max(10, day_minutes // 3))


def _translated(message: str) -> str:
    """A message id of the engine's (an option's words), translated when it is shown (a
    lazy string, which a field takes as its label)."""
    return cast(str, _(message))


def _option_fields(spec: engine.OptionSpec, name: str) -> dict[str, forms.Field]:
    """The New game form's fields for one option of a ruleset (`spec`), named `name`: an
    option the ruleset fills in for the table may have a box for that (`<name>_default`),
    ticked, before the field to choose it by hand."""
    label, help_text = _translated(spec.label), _translated(spec.help)
    fields: dict[str, forms.Field] = {}
    if spec.table_label:
        fields[f"{name}_default"] = forms.BooleanField(
            label=_translated(spec.table_label), help_text=_translated(spec.table_help), required=False, initial=True
        )
    if spec.kind == "bool":
        fields[name] = forms.BooleanField(label=label, help_text=help_text, required=False, initial=spec.default)
    elif spec.kind == "int":
        fields[name] = forms.IntegerField(
            label=label,
            help_text=help_text,
            min_value=spec.least,
            initial=spec.default,
            required=not spec.for_the_table,
        )
    elif spec.kind == "choice":
        choices = [(value, _translated(words)) for value, words in zip(spec.choices, spec.labels, strict=True)]
        fields[name] = forms.ChoiceField(
            label=label, help_text=help_text, choices=choices, initial=spec.default, required=False
        )
    elif spec.kind in ("choices", "characters"):
        # The organiser's own characters are offered once the form knows them (__init__).
        choices = [] if spec.kind == "characters" else list(zip(spec.choices, spec.labels, strict=True))
        fields[name] = forms.MultipleChoiceField(
            label=label, help_text=help_text, choices=choices, required=False, widget=forms.CheckboxSelectMultiple
        )
    else:
        fields[name] = forms.CharField(label=label, help_text=help_text, required=False, max_length=2000)
    return fields


def _for_the_table(ruleset: str, option: str, players: int) -> Any:
    """What `ruleset` fills `option` in with for a table of `players` (None where such a
    table does not fit it)."""
    try:
        return engine.options(ruleset, {}, players).get(option)
    except engine.SetupError:
        return None


def _timing_field(timing: Any) -> forms.IntegerField:
    return forms.IntegerField(
        label=_translated(timing.label),
        help_text=_translated(timing.help),
        min_value=1,
        max_value=MAX_PHASE_MINUTES,
        required=False,
    )


ADVICE = {
    "below_suggestion": _(
        "The rulebook suggests %(special)s from %(count)s players; your table has %(players)s. "
        "It is in the deck all the same: take it out on the form if you prefer."
    ),
}
"""The rulebook's advice on options the form takes all the same (`engine.advice`)."""
MAX_PHASE_MINUTES = 60 * 24 * 60
"""The longest night or day: sixty days. Longer would overflow a deadline's date (and the
database's integer) long before any table would wait that long."""
COMMON_ZONES = (
    "UTC",
    "Europe/London",
    "Europe/Rome",
    "Europe/Berlin",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "Australia/Sydney",
    "Asia/Tokyo",
)


@cache
def _zones() -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """The canonical time zones by region, each named by its place within the region:
    without the legacy aliases CLDR names (Africa/Asmera for Africa/Asmara, Asia/Calcutta
    for Asia/Kolkata, US/Eastern...), the Etc/ offsets (whose signs read backwards) and
    the names that have no region ("GMT", "Japan", "posixrules"): UTC, the one of those
    worth offering, heads the common zones."""
    aliases = get_global("zone_aliases")
    regions: dict[str, list[tuple[str, str]]] = {}
    for zone in sorted(zoneinfo.available_timezones()):
        region, slash, place = zone.partition("/")
        if slash and region != "Etc" and zone not in aliases:
            regions.setdefault(region, []).append((zone, place.replace("_", " ")))
    return tuple((region, tuple(zones)) for region, zones in sorted(regions.items()))


def timezone_choices(kept: str = "") -> list[Any]:
    """The time-zone menu: the common zones first, then every region's (optgroups). A
    zone no longer offered that a game already has (`kept`) is offered too, on top."""
    common = [(zone, zone.replace("_", " ")) for zone in COMMON_ZONES]
    choices: list[Any] = [(_("Common"), common)] + [(region, list(zones)) for region, zones in _zones()]
    offered = set(COMMON_ZONES).union(zone for _region, zones in _zones() for zone, _place in zones)
    if kept and kept not in offered and kept in zoneinfo.available_timezones():
        choices.insert(0, (kept, kept.replace("_", " ")))
    return choices


def _helper(label: str | Promise) -> FormHelper:
    helper = FormHelper()
    helper.add_input(Submit("submit", label))
    return helper


def _choices_field(form: forms.BaseForm, name: str) -> forms.ChoiceField:
    """One of `form`'s choice fields, to set its choices (`fields` types each as a Field)."""
    return cast(forms.ChoiceField, form.fields[name])


class RulesetOptionsForm(forms.Form):
    """Each ruleset's options as fields, a group a family (`option_groups`, filled in from
    what each ruleset says of its options: `with_options`), as the New game form and the
    print page offer them: the organiser's own characters to tick, the rulebook's
    suggestions beside the choices, one fieldset a family (static/werewolf/app.js shows the
    chosen ruleset's), the hidden families' fields ignored, and the options read as the
    engine takes them (`option_values`)."""

    option_groups: ClassVar[dict[str, tuple[str, ...]]] = {}
    """Each family's fields, by family, in the order the form lists them."""

    def offer_options(self, organiser: Any) -> None:
        """The option fields as this organiser sees them: their own characters to tick
        (none: no such field), the rulebook's suggested table beside each choice."""
        self.own_characters: dict[str, dict[str, Any]] = {}
        if organiser is not None and organiser.is_authenticated:
            for saved in organiser.characters.order_by("name"):
                self.own_characters[str(saved.pk)] = saved.definition
        for group in families():
            for spec in engine.option_specs(members(group)[0]):
                name = prefix(group) + spec.name
                if name not in self.fields:
                    continue
                if spec.kind == "characters" and not self.own_characters:
                    # Nothing to tick: the Characters page comes first.
                    del self.fields[name]
                elif spec.kind == "characters":
                    _choices_field(self, name).choices = [
                        (key, definition["name"]) for key, definition in self.own_characters.items()
                    ]
                elif spec.suggested:
                    _choices_field(self, name).choices = [
                        (
                            value,
                            _("%(special)s (suggested from %(least)s players)") % {"special": _(label), "least": least},
                        )
                        for value, label in zip(spec.choices, spec.labels, strict=True)
                        for least in [spec.suggested.get(value)]
                    ]

    def option_fieldsets(self) -> list[Fieldset]:
        """Each family's fields under its own heading, marked with its editions."""
        return [
            Fieldset(
                legend(group),
                # Only the fields this form has: the characters to tick exist once the
                # organiser has built one, and crispy-forms logs a traceback for a name
                # it cannot find.
                *(name for name in names if name in self.fields),
                css_class="ruleset-options",
                data_ruleset=" ".join(members(group)),
            )
            for group, names in self.option_groups.items()
        ]

    def ignore_hidden(self, ruleset: str) -> None:
        """Forget the errors of the other families' fields: hidden on the page and unused,
        they would stop the organiser with nothing to see."""
        for other, names in self.option_groups.items():
            if other != family(ruleset):
                for name in names:
                    self.errors.pop(name, None)

    def refuse_options(self, ruleset: str, error: engine.SetupError, limits: dict[str, Any]) -> None:
        """The engine's refusal of the options in `ruleset`'s words, beside the field at
        fault where the form has it (else above the form)."""
        option = error.option or ""
        prefixed = prefix(family(ruleset)) + option
        field = prefixed if prefixed in self.fields else option if option in self.fields else None
        self.add_error(field, ValidationError(setup_error(ruleset, error, limits)))

    def option_values(self, ruleset: str | None = None) -> dict[str, Any]:
        """The options the form holds for `ruleset` (by default the one chosen), as the
        engine takes them: an option left to the ruleset (its box ticked, or its field
        empty) is left out, for the ruleset to fill in for the table."""
        data = self.cleaned_data
        ruleset = ruleset or data.get("ruleset") or engine.listed()[0]
        group = prefix(family(ruleset))
        values: dict[str, Any] = {}
        for spec in engine.option_specs(ruleset):
            name = group + spec.name
            value = data.get(name)
            if spec.table_label and data.get(f"{name}_default"):
                continue
            if spec.kind == "characters":
                if value:
                    values[spec.name] = [self.own_characters[key] for key in value]
            elif spec.kind == "bool":
                values[spec.name] = bool(value)
            elif spec.kind == "choices":
                values[spec.name] = list(value or ())
            elif spec.kind == "text":
                values[spec.name] = value or ""
            elif value not in (None, ""):
                values[spec.name] = value
            elif spec.default is not None:
                values[spec.name] = spec.default  # a choice missing from an older form
        return values


class GameForm(RulesetOptionsForm):
    """A classic game: who plays, how many wolves and seers, and how phases run."""

    name = forms.CharField(label=_("Game name"), max_length=120, validators=[validators.validate_one_line])
    ruleset = forms.ChoiceField(
        label=_("Ruleset"),
        choices=ruleset_choices,
        initial=engine.listed()[0],
        required=False,
        help_text=_("Each ruleset's own options follow below, under its name; only the chosen ruleset's are used."),
    )
    players = forms.CharField(
        label=_("Players"),
        required=False,
        widget=forms.Textarea(
            attrs={"rows": 8, "placeholder": _("Ada <ada@example.org>\nBruno <bruno@example.org>\nChiara")}
        ),
        help_text=_(
            "One player a line: a name, then their email, as in “Ada &lt;ada@example.org&gt;”. "
            "Names must differ, in more than case or accents, and are written on notecards: "
            "no commas, semicolons or angle brackets. Leave the email out for players you will enter cards for."
        ),
    )
    night_minutes = forms.IntegerField(
        label=_("Night length (minutes)"),
        min_value=1,
        max_value=MAX_PHASE_MINUTES,
        initial=1440,
        help_text=_("1440 minutes is one day; 86400 (sixty days) is the longest."),
    )
    day_minutes = forms.IntegerField(
        label=_("Day length (minutes)"),
        min_value=1,
        max_value=MAX_PHASE_MINUTES,
        initial=1440,
        help_text=_("At most 86400 minutes (sixty days)."),
    )
    timezone = forms.ChoiceField(
        label=_("Time zone"), initial="UTC", help_text=_("Deadlines are shown in this time zone.")
    )
    language = forms.ChoiceField(
        label=_("Language"),
        choices=settings.LANGUAGES,
        initial="en",
        required=False,
        help_text=_("What the players read: their pages, their mails and the game's printed documents."),
    )
    seating = forms.ChoiceField(
        label=_("Seats"),
        choices=[("draw", _("Drawn at random when the game starts")), ("listed", _("In the order listed above"))],
        initial="draw",
        help_text=_("The circle matters: it is shown to everyone. Keep the listed order for a table already seated."),
    )
    dealing = forms.ChoiceField(
        label=_("Roles"),
        choices=[("deal", _("Dealt at random when the game starts")), ("assign", _("Assigned by me before the start"))],
        initial="deal",
        help_text=_(
            "Assigning roles suits a group that knows each other well; new groups enjoy a random deal more. "
            "A table that dealt the printed cards by hand enters that deal on the dashboard before the start."
        ),
    )
    early_resolution = forms.BooleanField(
        label=_("Resolve a phase early when every card is in"), required=False, initial=True
    )
    signup = forms.BooleanField(
        label=_("Players may also join by a link"),
        required=False,
        help_text=_(
            "The dashboard then shows a join link: each person gives a name and an address and confirms by mail. "
            "List here only the players you already know (or nobody)."
        ),
    )
    signup_limit = forms.IntegerField(
        label=_("At most this many players in all"),
        min_value=1,
        required=False,
        help_text=_("With players joining by a link. Empty: as many as the ruleset takes."),
    )
    public_square = forms.BooleanField(
        label=_("Show the town square on the public page"),
        required=False,
        help_text=_("The players talk in the town square; with this, anyone with the public link reads it too."),
    )

    def __init__(self, *args: Any, submit_label: Any = None, organiser: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.offer_options(organiser)
        kept = str(self.initial.get("timezone") or "")
        _choices_field(self, "timezone").choices = timezone_choices(kept)
        self.helper = _helper(submit_label or _("Create the game"))
        self.helper.layout = Layout(*(name for name in COMMON_FIELDS if name in self.fields), *self.option_fieldsets())

    def initial_query(self) -> QueryDict:
        """The form as it first shows, as a browser sends it: a ticked box "on", a list
        item by item, an empty field or an unticked box left out (the lab's tests and
        benchmark ask about the New game form's own defaults with it)."""
        query = QueryDict(mutable=True)
        for name, field in self.fields.items():
            initial = self.get_initial_for_field(field, name)
            if initial is True:
                query[name] = "on"
            elif isinstance(initial, (list, tuple)):
                query.setlist(name, [str(item) for item in initial])
            elif initial not in (None, False, ""):
                query[name] = str(initial)
        return query

    @classmethod
    def initial_for(cls, game: Any) -> dict[str, Any]:
        """The form as it was filled in for a game not yet started, to change it."""
        players = game.players.filter(pending=False).order_by("pk")
        ruleset = game.ruleset
        group = family(ruleset)
        initial: dict[str, Any] = {}
        for spec in engine.option_specs(ruleset):
            name = prefix(group) + spec.name
            value = game.options.get(spec.name)
            if spec.kind == "characters":
                value = [
                    str(saved.pk) for saved in game.organiser.characters.all() if saved.definition in (value or [])
                ]
            elif spec.kind == "choices" and value is not None:
                value = [item for item in value if item in spec.choices]  # not the organiser's characters
            if spec.table_label:
                # Ticked where the game holds what the ruleset fills in for its table.
                table = _for_the_table(ruleset, spec.name, players.count())
                initial[f"{name}_default"] = value is None or list(value) == list(table or ())
            if spec.kind == "text" and isinstance(value, list):
                value = ", ".join(value)
            if value is not None:
                initial[name] = value
        for timing in engine.capabilities(ruleset).timings:
            initial[f"{prefix(group)}{timing.name}_minutes"] = game.stage_minutes.get(timing.steps[0])
        initial.update(
            {
                "ruleset": ruleset,
                "name": game.name,
                "players": "\n".join(f"{p.name} <{p.email}>" if p.email else p.name for p in players),
                "night_minutes": game.night_minutes,
                "day_minutes": game.day_minutes,
                "timezone": game.timezone,
                "language": game.language,
                "seating": "draw" if game.draw_seats else "listed",
                "dealing": "deal" if game.deal_roles else "assign",
                "early_resolution": game.early_resolution,
                "public_square": game.public_square,
                "signup": bool(game.signup_key),
                "signup_limit": game.signup_limit,
            }
        )
        return initial

    def clean_players(self) -> list[Seating]:
        seats: list[Seating] = []
        problems: list[ValidationError] = []
        # Only a line feed ends a line: any other break in a line (a lone CR, a vertical
        # tab, U+2028) is refused as an invisible character, not read as a new player.
        for number, line in enumerate(self.cleaned_data["players"].replace("\r\n", "\n").split("\n"), start=1):
            if not line.strip():
                continue
            match = _LINE.match(line)
            if not match:
                problems.append(
                    ValidationError(
                        _("Line %(line)s is not “Name <email>”: %(text)s"),
                        params={"line": number, "text": line.strip()},
                    )
                )
                continue
            try:
                name = validators.clean_player_name(match["name"])
                email = validators.clean_email(match["email"]) if match["email"] else ""
            except ValidationError as problem:
                problems.append(
                    ValidationError(
                        _("Line %(line)s: %(problem)s"), params={"line": number, "problem": problem.messages[0]}
                    )
                )
                continue
            seats.append(Seating(name, email))
        if problems:
            raise ValidationError(problems)
        validators.check_distinct(seat.name for seat in seats)
        return seats

    def expected_players(self, seats: list[Seating], rules: Any) -> int | None:
        """With sign-up by a link: the table the options are checked for (the limit, or
        as many as listed but at least the ruleset's least)."""
        if not self.cleaned_data.get("signup"):
            return None
        limit = self.cleaned_data.get("signup_limit")
        # The ruleset's typical table: the options are checked again, with their
        # defaults, for the real table at the start.
        return int(limit) if limit else max(len(seats), rules.capabilities.typical_table or rules.min_players)

    def clean_ruleset(self) -> str:
        return self.cleaned_data.get("ruleset") or engine.listed()[0]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        seats = data.get("players")
        ruleset = data.get("ruleset") or engine.listed()[0]
        self.ignore_hidden(ruleset)
        rules = rulesets.get(ruleset)
        limits = {"min": rules.min_players, "max": rules.max_players}
        if not seats and not data.get("signup") and "players" not in self.errors:
            self.add_error("players", ValidationError(forms.Field.default_error_messages["required"], code="required"))
        expected = self.expected_players(seats or [], rules)
        data["expected_players"] = expected
        least = 0 if expected else rules.min_players
        limit = data.get("signup_limit")
        if limit and not rules.min_players <= limit <= rules.max_players:
            self.add_error("signup_limit", self.count_error(ruleset, limits))
        if seats is not None and "players" not in self.errors and not least <= len(seats) <= rules.max_players:
            self.add_error("players", self.count_error(ruleset, limits))
        if seats is None or (not seats and not expected) or self.errors:
            return data
        try:
            data["options"] = engine.options(ruleset, self.option_values(ruleset), expected or len(seats))
            data["advice"] = [
                ADVICE[item.code]
                % {
                    "special": choice_label(ruleset, item.option, item.value),
                    "count": item.count,
                    "players": expected or len(seats),
                }
                for item in engine.advice(ruleset, data["options"], expected or len(seats))
            ]
        except engine.SetupError as error:
            self.refuse_options(ruleset, error, limits)
            return data
        day = data["day_minutes"]
        data["stage_minutes"] = {
            step: data.get(f"{prefix(family(ruleset))}{timing.name}_minutes")
            or (ballot_minutes(day) if timing.short else day)
            for timing in engine.capabilities(ruleset).timings
            for step in timing.steps
        }
        return data

    @staticmethod
    def count_error(ruleset: str, limits: dict[str, int]) -> ValidationError:
        """The refusal of a table too small or too large for the ruleset, in its own words
        (rulesets/<family>/games/player_count.html)."""
        return ValidationError(words(own_templates(ruleset, "games/player_count.html"), limits))


def _group_fields(group: str, *, timings: bool = True) -> dict[str, forms.Field]:
    """A family's fields: each option of its first edition (its editions share their
    options), then (`timings`) the lengths of its day's own steps."""
    fields: dict[str, forms.Field] = {}
    for spec in engine.option_specs(members(group)[0]):
        fields.update(_option_fields(spec, prefix(group) + spec.name))
    if timings:
        for timing in engine.capabilities(members(group)[0]).timings:
            fields[f"{prefix(group)}{timing.name}_minutes"] = _timing_field(timing)
    return fields


def with_options(form: type[RulesetOptionsForm], *, timings: bool) -> dict[str, tuple[str, ...]]:
    """Give `form` each family's option fields (`_group_fields`), after its own, and
    record them as its `option_groups`, which it returns."""
    groups = {group: _group_fields(group, timings=timings) for group in families()}
    form.base_fields.update({name: field for fields in groups.values() for name, field in fields.items()})
    form.option_groups = {group: tuple(fields) for group, fields in groups.items()}
    return form.option_groups


RULESET_FIELDS = with_options(GameForm, timings=True)
"""The New game form's fields of each family's options, built from what each ruleset says
of them (`engine.option_specs`, its capabilities' timings), shown under its name
(static/werewolf/app.js shows only the chosen ruleset's; without scripts all show)."""


def choice_label(ruleset: str, option: str, value: str) -> str:
    """How the New game form names one choice of an option, in the reader's language."""
    for spec in engine.option_specs(ruleset):
        if spec.name == option and value in spec.choices:
            return str(_(spec.labels[spec.choices.index(value)]))
    return value


class Options(BaseChoiceIterator):
    """A select's choices as (value, label) pairs of strings already: Django's fields and
    widgets take such an iterator as it is, where they would check every pair of a list
    again, twice (the field and its widget), for every select of every card form (a
    wolf's ranked card has ten): most of what building the form cost."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = pairs
        self.written: dict[tuple[tuple[str, ...], bool], str] = {}
        """The options as `CardSelect` writes them, by the values selected and whether
        the select is required: the same for each select offering these choices (a
        wolf's ranked card has ten, all empty on a new phase's page)."""

    def __iter__(self) -> Any:
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)


class CardSelect(forms.Select):
    """A card's select, its options written by its own template rather than Django's,
    which includes a template for each option and another for its attributes: a wolf's
    ranked card has eleven selects of thirteen options, and rendering them that way was
    a third of what a seat's page cost. The options are written once for every select
    of the form that offers the same choices with the same selected value
    (`Options.written`; Django's `optgroups`, a dictionary an option, not built at all).
    The markup is the same (tests/web/test_card_markup.py)."""

    template_name = "games/widgets/card_select.html"
    options_template_name = "games/widgets/card_options.html"

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        # (Widget's own context, its value a list of strings as Select's: not
        # ChoiceWidget's, which adds the optgroups the options are written without.)
        context = forms.Widget.get_context(self, name, value, attrs)
        widget = context["widget"]
        widget["options"] = self.written_options(tuple(widget["value"]), bool(widget["attrs"].get("required")))
        return context

    def written_options(self, selected: tuple[str, ...], required: bool) -> str:
        choices = self.choices
        written: dict[tuple[tuple[str, ...], bool], str] | None = getattr(choices, "written", None)
        key = (selected, required)
        if written is not None and key in written:
            return written[key]
        text = mark_safe(
            render_to_string(
                self.options_template_name,
                {"options": list(choices), "selected": selected, "required": required},
            )
        )
        if written is not None:
            written[key] = text
        return text

    def render(self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None) -> SafeString:
        return mark_safe(render_to_string(self.template_name, self.get_context(name, value, attrs)))


def _seat_or_card(value: str) -> int | str:
    """A card select's value: a seat number, or (a choice it offers, checked by the
    field) the kind of a card handed in instead of the slot's (`Slot.instead`)."""
    number = validators.ascii_number(value)
    return value if number is None else number


class SeatField(forms.TypedChoiceField):
    """A choice of seat. Any seat number passes the form; the engine judges whether the
    seat may be named, so a forged choice gets the engine's precise refusal. The first
    select of a slot with cards it takes instead (a day's NO ELIMINATION) offers them
    too, by their kind."""

    widget = CardSelect

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(coerce=_seat_or_card, empty_value=None, **kwargs)

    def valid_value(self, value: Any) -> bool:
        return validators.ascii_number(str(value)) is not None or super().valid_value(value)


class PhaseCarrier(forms.Form):
    """A form that carries, in a hidden field, the phase its page showed, so that a card
    or a tool meant for one phase never acts on the next. A hidden field's error would
    show nowhere: a missing or mangled phase is said at the top of the form instead."""

    phase = forms.CharField(widget=forms.HiddenInput, required=False)
    phase_required = True
    stale_message = _("This form is out of date: reload the page and try again.")

    def clean_phase(self) -> int | None:
        return validators.ascii_number(self.cleaned_data["phase"])

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        sent = self.data.get(self.add_prefix("phase"), "")
        if data.get("phase") is None and (sent or self.phase_required):
            data.pop("phase", None)
            raise ValidationError(self.stale_message, code="stale_form")
        return data


def words(template: str | list[str], context: dict[str, Any]) -> str:
    """Words a player reads, from a template (never from Python strings): HTML already
    escaped by the template, so marked safe, lest a name's apostrophe be escaped twice."""
    return mark_safe(render_to_string(template, context).strip())


def card_word(word: str, ruleset: str | None = None, **context: Any) -> str:
    """A word of the notecard form, in the words of `ruleset`'s notecards (its own
    rulesets/<family>/includes/notecard_words.html, then the shared one), each one
    rendered once per language: a card form asks for a dozen of them on every request."""
    return _card_word(word, translation.get_language(), ruleset, tuple(sorted(context.items())))


@kept_words.register
@lru_cache(maxsize=1024)
def _card_word(word: str, language: str | None, ruleset: str | None, context: tuple[tuple[str, Any], ...]) -> str:
    return words(own_templates(ruleset, "includes/notecard_words.html"), {"word": word, **dict(context)})


class NotecardForm(PhaseCarrier):
    """The card a phase asks of one seat (see `engine.PhaseSpec`), its selects built
    from the card's schema: a field that takes one name is one select, named after the
    field (`target` for the main field); a field that takes several is a select for each,
    numbered (`target_1`, `target_2`..., best first when ranked; `swap_1`, `swap_2`); a
    ranked list as long as the choices has a select for each choice. Labels come from
    includes/notecard_words.html by card kind and field name. `submit` names the
    button's word there.

    A select every card taken fills (`needed`: the Werewolf's claw) is marked required
    and opens on a disabled "choose ..." instead of an empty choice the engine would
    refuse; the form itself still takes it empty, so that a card sent without the
    browser's check gets the engine's own refusal, as every other door does."""

    def __init__(
        self,
        *args: Any,
        slot: engine.Slot,
        names: list[str],
        seat: int,
        submit: str,
        ruleset: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.slot = slot
        if submit == "hand_in":
            self.stale_message = _("This form is out of date: reload the page and hand your card in again.")
        else:
            self.stale_message = _("This form is out of date: reload the page and enter the card again.")
        card = slot.card
        empty = card_word("none", ruleset, kind=card.kind, abstain=card.may_be_empty)
        self.selects = card_selects(slot)
        # The cards taken instead of this one (NO ELIMINATION), by their notecard word,
        # among the first select's choices: what a mail or a paper card writes alone.
        instead = [(other.kind, grammar.spoken(other.word, translation.get_language())) for other in slot.instead]
        for index, ((field, selects), choices) in enumerate(zip(self.selects, _usable_choices(slot), strict=True)):
            labels = choice_labels(field.refers, names)
            named = [(str(choice), labels[choice]) for choice in choices]
            if index == 0:
                named = instead + named
            options = Options([("", empty)] + named)
            required = needed(card, field) if choices else 0
            if required:
                choose = card_word("choose", ruleset, kind=card.kind, field=field.name, refers=field.refers)
                prompted = Options([("", choose)] + named)
            for number, name in enumerate(selects, start=1):
                label = card_word(
                    "field",
                    ruleset,
                    kind=card.kind,
                    field=field.name,
                    number=number if field.most != 1 else None,
                    ranked=field.ranked,
                )
                if number <= required:
                    self.fields[name] = SeatField(label=label, required=False, choices=prompted)
                    self.fields[name].widget.attrs["required"] = True
                else:
                    self.fields[name] = SeatField(label=label, required=False, choices=options)
        self.helper = _helper(card_word(submit, ruleset))
        self.helper.field_template = "games/widgets/card_field.html"
        self.helper.form_tag = False  # games/widgets/card_form.html writes it, with its token
        self.shared = ""
        """What the form's fields and button, unbound, are a function of: its card, the
        seats' names, the card it starts from, its button, the ruleset and the language.
        A page renders them once for all its readers with the same key (its next
        requests after another seat's card changed the game's version, another wolf's
        page): games/widgets/card_form.html. A bound form, which shows what was posted
        and its errors, is rendered afresh."""
        if not self.is_bound:
            initial = sorted(self.initial.items())
            parts = (translation.get_language(), ruleset, submit, repr(slot), "\x1f".join(names), repr(initial))
            self.shared = "|".join(str(part) for part in parts)

    def refused(self, message_id: str) -> None:
        """Tie the card's selects to the refusal shown above the form (its element id),
        so that assistive technology reads the reason with the field."""
        self.shared = ""
        for name in self.fields:
            if name != "phase":
                self.fields[name].widget.attrs.update({"aria-invalid": "true", "aria-describedby": message_id})

    @staticmethod
    def initial_for(phase_id: int, card: engine.Order | None, slot: engine.Slot | None = None) -> dict[str, Any]:
        """Initial values that show the card counted now, so changing it starts from it."""
        initial: dict[str, Any] = {"phase": phase_id}
        if card is not None and slot is not None and any(other.kind == card.kind for other in slot.instead):
            return NotecardForm._initial_instead(phase_id, card, slot)
        if card is None or slot is None or card.kind != slot.kind:
            return initial
        for field in slot.card.fields:
            values = card.field(field.name)
            initial.update(zip(select_names(field, max(len(values), 1)), values, strict=False))
        return initial

    @staticmethod
    def _initial_instead(phase_id: int, card: engine.Order, slot: engine.Slot) -> dict[str, Any]:
        """A card handed in instead of the slot's, shown as the first select's choice."""
        selects = card_selects(slot)
        return {"phase": phase_id, selects[0][1][0]: card.kind} if selects else {"phase": phase_id}

    def order(self) -> engine.Order:
        """The card the form's selects write (`written_card`)."""
        return written_card(self.slot.card, self.selects, self.cleaned_data)


def needed(card: engine.Card, field: engine.Field) -> int:
    """How many of `field`'s values every card `card` takes holds, so how many of its
    selects (the first ones) may not be left empty: none where an empty card is taken (as
    SLEEP, or as itself: a vote for nobody) or the field is optional; else the field's
    fewest, and at least one when it is the card's only field that is not optional (the
    Werewolf's claw: neither SLEEP nor an empty card is taken)."""
    if card.blank or card.may_be_empty or field.optional:
        return 0
    kept = [other for other in card.fields if not other.optional]
    return max(field.least, 1 if len(kept) == 1 and kept[0] is field else 0)


def _usable_choices(slot: engine.Slot) -> list[tuple[int, ...]]:
    return [choices for field, choices in slot.pairs() if choices or not field.optional]


Selects = tuple[tuple[engine.Field, tuple[str, ...]], ...]
"""A card form's selects, by field: the field, and its selects' names."""


@lru_cache(maxsize=1024)
def card_selects(slot: engine.Slot) -> Selects:
    """The selects of a seat's card form, by field: each field the seat can use now (not
    an optional one without choices: another edition's), with its selects' names. The
    same for the same slot, so kept."""
    return tuple(
        (field, tuple(select_names(field, len(choices))))
        for field, choices in slot.pairs()
        if choices or not field.optional
    )


def written_card(card: engine.Card, selects: Selects, values: Any) -> engine.Order:
    """The card a card form's selects write, from their values (a seat number, or None
    for a select left empty): the fields filled in, in order (a ranked list closes up its
    gaps); a card left empty is SLEEP, where the card may be; a card taken instead of
    `card` where the first select chose its kind (`Slot.instead`)."""
    chosen = [values.get(name) for _, names in selects for name in names]
    kind = next((value for value in chosen if isinstance(value, str)), None)
    if kind is not None:
        return engine.Order(kind)  # a card taken instead of this one (a choice of the first select)
    written = [
        (field.name, tuple(values[name] for name in names if values.get(name) is not None)) for field, names in selects
    ]
    if not any(taken for _, taken in written):
        return engine.Order(engine.SLEEP.kind) if card.blank else engine.Order(card.kind)
    targets = next((taken for name, taken in written if name == engine.TARGETS), ())
    more = tuple((name, taken) for name, taken in written if name != engine.TARGETS and taken)
    return engine.Order(card.kind, targets, more)


def posted_card(slot: engine.Slot, data: Any) -> tuple[int, engine.Order] | None:
    """The phase and the card a seat's card form posts (`data`, the POST), read without
    building the form, when the form would take every value as it is: the phase a
    number, each select empty or a number (which seat it may name is the engine's to
    judge, as with the form). None for anything else, which the form itself then reads
    and refuses as it says (`NotecardForm`): this reading never refuses anything, and
    what it takes it reads as the form does (tests/web/test_card_form_reading.py)."""
    phase = validators.ascii_number(data.get("phase", "").strip())
    if phase is None:
        return None
    selects = card_selects(slot)
    instead = {other.kind for other in slot.instead}
    first = selects[0][1][0] if selects else None
    values: dict[str, int | str | None] = {}
    for _field, names in selects:
        for name in names:
            value = data.get(name, "")
            if value == "":
                values[name] = None
                continue
            if name == first and value in instead:
                values[name] = value
                continue
            number = validators.ascii_number(value)
            if number is None:
                return None
            values[name] = number
    return phase, written_card(slot.card, selects, values)


def choice_labels(refers: str, names: list[str]) -> list[str]:
    """How a card's select names its choices: seats by name, Lupusburg's houses as cards
    write them ("Ada 2"), a coin's rank in words (includes/coin_rank.html)."""
    if refers == "token":
        return [words("includes/coin_rank.html", {"rank": rank}) for rank in range(grammar.KEEP_RANKS)]
    return list(grammar.labels_for(refers, names))


def select_names(field: engine.Field, choices: int) -> list[str]:
    """The HTML names of a field's selects: the field's name (`target` for the main
    field) for a field of one name, else numbered from 1, one for each name it takes (a
    ranked list without a limit: one for each choice)."""
    base = "target" if field.name == engine.TARGETS else field.name
    if field.most == 1:
        return [base]
    count = choices if field.most is None else field.most
    return [f"{base}_{number}" for number in range(1, count + 1)]


class ExtendForm(PhaseCarrier):
    action = forms.CharField(widget=forms.HiddenInput, initial="extend")
    phase_required = False
    stale_message = _("This form is out of date: reload the page and extend the deadline again.")
    minutes = forms.IntegerField(
        label=_("Extend the deadline by (minutes)"), min_value=1, max_value=60 * 24 * 14, initial=60
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.helper = _helper(_("Extend"))


HAND_PARTS = {
    "role": _("Role"),
    "characters": _("Character under house %(number)s"),
    "chest": _("Chest under"),
    "goal": _("Secret goal"),
}
"""The label of each part of a hand in the organiser's deal (`engine.deal_shape`); a part
dealt more than once is numbered."""


def deal_mark_words(ruleset: str, mark: str) -> tuple[str, str]:
    """The seat the deal names besides the hands (`DealShape.mark`: the alpha, the first
    Burgomaster), in the words of `ruleset`'s family (games/deal_mark.html through `own`):
    its label, and what leaving it out means."""
    template = own_templates(ruleset, "games/deal_mark.html")
    return words(template, {"mark": mark, "word": "label"}), words(template, {"mark": mark, "word": "unnamed"})


def hand_choice_words(part: rulesets.HandPart, value: str, ruleset: str) -> str:
    """A value of a hand's part in words: a card's name, one's own house by its number
    (1 or 2), a secret goal."""
    if part.refers == "own_house":
        return str(_("House %(number)s") % {"number": int(value) + 1})
    if part.refers == "goal":
        return words("includes/goal.html", {"goal": value})
    return role_name(value, ruleset)


class AssignRolesForm(forms.Form):
    """The organiser's own deal: each player's hand as the ruleset's deal shape says
    (`engine.deal_shape`: one card of the game's deck; in Lupusburg the character under
    each house, the house of the chest, the secret goal), and the seat the deal names
    besides (the alpha, if chosen; Lupusburg's first Burgomaster). Every select offers
    what the engine deals from; where the deck holds more cards than players (Tabula at
    seven), the card nobody is dealt is set aside."""

    def __init__(self, *args: Any, game: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game
        self.players = list(game.players.filter(pending=False).order_by("pk"))
        self.shape = engine.deal_shape(game.ruleset, game.options, len(self.players))
        self.one_card = len(self.shape.parts) == 1 and self.shape.parts[0].count == 1
        """A hand of one card (a role): each player's select is labelled with their name."""
        self.deck = tuple(card for part in self.shape.parts if part.refers == "card" for card in part.pool)
        self.names: dict[int, list[str]] = {}
        for player in self.players:
            hand = player.assigned_hand or {}
            self.names[player.pk] = []
            for part in self.shape.parts:
                choices = [("", "—")] + [
                    (value, hand_choice_words(part, value, game.ruleset)) for value in self._values(part)
                ]
                given = hand.get(part.name)
                for number in range(1, part.count + 1):
                    name = f"{part.name}_{player.pk}" if part.count == 1 else f"{part.name}_{player.pk}_{number}"
                    initial = given[number - 1] if part.count > 1 and isinstance(given, list) else given
                    label = player.name if self.one_card else HAND_PARTS[part.name] % {"number": number}
                    self.fields[name] = forms.TypedChoiceField(
                        label=label,
                        choices=choices,
                        coerce=int if part.refers == "own_house" else str,
                        required=True,
                        initial=initial,
                    )
                    self.names[player.pk].append(name)
        mark_label, unnamed = deal_mark_words(game.ruleset, self.shape.mark)
        self.fields[self.shape.mark] = forms.TypedChoiceField(
            label=mark_label,
            choices=[("", unnamed)] + [(p.pk, p.name) for p in self.players],
            coerce=int,
            empty_value=None,
            required=self.shape.mark_required,
            initial=next((player.pk for player in self.players if player.assigned_mark), ""),
        )
        self.fields["action"] = forms.CharField(widget=forms.HiddenInput, initial="assign")
        self.helper = _helper(_("Save the roles") if self.one_card else _("Save the deal"))
        if not self.one_card:
            self.helper.layout = Layout(
                *(Fieldset(player.name, *self.names[player.pk]) for player in self.players),
                self.shape.mark,
                "action",
            )

    @staticmethod
    def _values(part: rulesets.HandPart) -> tuple[str, ...]:
        return ("0", "1") if part.refers == "own_house" else part.choices

    @property
    def left_over(self) -> bool:
        """Whether the deck holds more cards than the hands take (one is set aside)."""
        dealt = sum(part.count for part in self.shape.parts if part.refers == "card")
        return len(self.deck) > dealt * len(self.players)

    def deck_words(self) -> str:
        """The deck in words, each card with its count ("Werewolf ×2, Seer, Villager ×5")."""
        return words(
            "includes/deck.html",
            {"cards": deck_counts(self.deck), "players": len(self.players), "ruleset": self.game.ruleset},
        )

    def hands(self) -> dict[int, dict[str, Any]]:
        """Each player's hand, by player id, as `services.assign_deal` takes it."""
        hands: dict[int, dict[str, Any]] = {}
        for player in self.players:
            values = iter(self.cleaned_data[name] for name in self.names[player.pk])
            hands[player.pk] = {
                part.name: next(values) if part.count == 1 else [next(values) for _ in range(part.count)]
                for part in self.shape.parts
            }
        return hands

    def mark(self) -> int | None:
        """The player id the deal names besides the hands, or None."""
        marked: int | None = self.cleaned_data.get(self.shape.mark)
        return marked

    def refuse(self, error: engine.SetupError) -> None:
        """The engine's refusal in words: the player at fault by name where the refusal
        names a seat (numbered in the form's order of players), a value by its words."""
        params: dict[str, Any] = {**self.game.options, "deck": self.deck_words()}
        value = error.value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(self.players):
            params["player"] = self.players[value].name
        part = next((part for part in self.shape.parts if isinstance(value, str) and value in part.pool), None)
        if part is not None:
            params["value"] = hand_choice_words(part, str(value), self.game.ruleset)
            params["copies"] = part.pool.count(str(value))
        self.add_error(None, ValidationError(setup_error(self.game.ruleset, error, params)))


def setup_error(ruleset: str, error: engine.SetupError, params: dict[str, Any]) -> str:
    """The engine's refusal of a setup in the words of `ruleset`'s family
    (rulesets/<family>/games/setup_error.html, then the shared one's neutral words), with
    `params` (the player, value or deck at fault)."""
    return words(own_templates(ruleset, "games/setup_error.html"), {**params, "code": error.code})


def role_name(role: str, ruleset: str) -> str:
    """A role's name as players of `ruleset` read it (the `role` filter: the ruleset's
    own rulesets/<family>/includes/role.html)."""
    return mark_safe(role_filter(role, ruleset))


def deck_counts(deck: tuple[str, ...]) -> list[tuple[str, int]]:
    """Each card of a deck once, in the deck's order, with how many there are."""
    return [(role, deck.count(role)) for role in dict.fromkeys(deck)]


class JoinForm(forms.Form):
    """A person asking for a seat by the join link: a name for the notecards and an
    address to confirm it by."""

    name = forms.CharField(label=_("Your name in the game"), max_length=validators.NAME_MAX_LENGTH)
    email = forms.CharField(
        label=_("Your email"),
        max_length=validators.EMAIL_MAX_LENGTH,
        help_text=_("A link to confirm your seat goes there; then the game's mails."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.helper = _helper(_("Ask for a seat"))

    def clean_name(self) -> str:
        return validators.clean_player_name(self.cleaned_data["name"])

    def clean_email(self) -> str:
        return validators.clean_email(self.cleaned_data["email"])


class SignupForm(forms.Form):
    """The organiser opens the game to sign-up by a link."""

    action = forms.CharField(widget=forms.HiddenInput, initial="open_signup")
    limit = forms.IntegerField(
        label=_("At most this many players in all"),
        min_value=1,
        required=False,
        help_text=_("Empty: as many as the ruleset takes."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.helper = _helper(_("Open the sign-up"))


class SubstituteForm(forms.Form):
    name = forms.CharField(label=_("New player's name"), max_length=validators.NAME_MAX_LENGTH)
    email = forms.CharField(
        label=_("New player's email"), required=False, max_length=validators.EMAIL_MAX_LENGTH, strip=True
    )

    def __init__(self, *args: Any, taken: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.taken = list(taken)
        self.helper = _helper(_("Substitute"))

    def clean_name(self) -> str:
        name = validators.clean_player_name(self.cleaned_data["name"])
        validators.check_new_name(name, self.taken)
        return name

    def clean_email(self) -> str:
        email = self.cleaned_data["email"]
        return validators.clean_email(email) if email else ""


class DemoForm(forms.Form):
    name = forms.CharField(label=_("Your name in the demo"), max_length=60, initial="Robin")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.helper = _helper(_("Start a demo game"))


class PaperCardsForm(PhaseCarrier):
    """Every asked seat's card at once, in the notecard words (docs/orders.md), for the
    organiser who collected paper cards. Empty rows leave a seat's card as it is."""

    stale_message = _("This form is out of date: reload the page and type the cards in again.")

    def __init__(
        self, *args: Any, seats: list[tuple[int, str, str]], submit_label: str | Promise, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        for seat, label, help_text in seats:
            self.fields[f"seat_{seat}"] = forms.CharField(
                label=label, help_text=help_text, required=False, max_length=500
            )
        self.helper = _helper(submit_label)

    def card_texts(self) -> list[tuple[int, str]]:
        return [
            (int(name.split("_")[1]), value.strip())
            for name, value in self.cleaned_data.items()
            if name.startswith("seat_") and value.strip()
        ]


class PrintDeckForm(RulesetOptionsForm):
    """The organiser's "print a deck": any ruleset, any table size, no game needed, with
    each ruleset's options as the New game form offers them (`RulesetOptionsForm`), so
    that the deck holds the very cards a game with those options deals."""

    document = forms.ChoiceField(
        label=_("Document"),
        choices=[
            ("role_cards", _("Role cards")),
            ("pack", _("Lupusburg's whole pack: characters, houses, goals, coins, seals, the Burgomaster")),
            ("score_sheet", _("Score sheet (Lupusburg: a series of games)")),
        ],
        initial="role_cards",
        required=False,
    )
    ruleset = forms.ChoiceField(
        label=_("Ruleset"),
        choices=ruleset_choices,
        initial=engine.listed()[0],
        help_text=_("Each ruleset's own options follow below, under its name; only the chosen ruleset's are used."),
    )
    players = forms.IntegerField(label=_("Players"), min_value=1, max_value=40, initial=12)
    paper = forms.ChoiceField(label=_("Paper"), choices=[("a4", _("A4")), ("letter", _("Letter"))], initial="a4")
    backs = forms.BooleanField(
        label=_("Backs on the next sheet, for printing on both sides"),
        required=False,
        help_text=_("Print on both sides, flipping on the long edge: each back lands behind its card."),
    )

    def __init__(self, *args: Any, organiser: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.offer_options(organiser)
        self.helper = _helper(_("Download (PDF)"))
        self.helper.layout = Layout("document", "ruleset", "players", "paper", "backs", *self.option_fieldsets())

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        ruleset, players = data.get("ruleset"), data.get("players")
        if ruleset:
            self.ignore_hidden(ruleset)
        if data.get("document") in ("score_sheet", "pack") and ruleset and not engine.capabilities(ruleset).paper_pack:
            raise forms.ValidationError(words("includes/print_refusal.html", {"scoring": True}), code="document")
        if not ruleset or not players:
            return data
        rules = rulesets.get(ruleset)
        limits = {"min": rules.min_players, "max": rules.max_players}
        try:
            engine.options(ruleset, {}, players)
        except engine.SetupError:
            raise forms.ValidationError(words("includes/print_refusal.html", limits), code="players") from None
        if self.errors:
            return data
        try:
            # As the New game form checks them for a table of as many players.
            data["options"] = engine.options(ruleset, self.option_values(ruleset), players)
        except engine.SetupError as error:
            self.refuse_options(ruleset, error, limits)
        return data


class StandbyJoinForm(JoinForm):
    """The join link's form, which takes standbys too: before the start a person chooses
    a seat or the standby list; once the game runs, the link takes standbys only."""

    standby = forms.BooleanField(
        label=_("Stand by: no seat now, a seat later if one needs a new player"), required=False
    )

    def __init__(self, *args: Any, standby_only: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.standby_only = standby_only
        if standby_only:
            del self.fields["standby"]
            self.helper = _helper(_("Stand by"))

    def wants_standby(self) -> bool:
        return self.standby_only or bool(self.cleaned_data.get("standby"))


class SeatPolicyForm(forms.ModelForm):  # type: ignore[type-arg]
    """The organiser's missed-cards policy and how many standbys the game takes."""

    class Meta:
        model = SeatPolicy
        fields = ["prod_after", "act_after", "at_limit", "standby_limit"]
        help_texts = {
            "prod_after": _("0: never."),
            "act_after": _("0: never."),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("prod_after", "act_after", "standby_limit"):
            cast(forms.IntegerField, self.fields[name]).max_value = 20
            self.fields[name].widget.attrs["max"] = 20
        self.helper = FormHelper()
        self.helper.form_tag = False  # (the dashboard's panel writes the form and its button)


PRINT_FIELDS = with_options(PrintDeckForm, timings=False)
"""The print page's option fields: the New game form's, without the steps' lengths (no
part of a deck)."""
