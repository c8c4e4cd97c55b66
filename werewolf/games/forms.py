"""Forms: the organiser's game set-up and tools, and the player's notecard."""

from __future__ import annotations

import re
import zoneinfo
from typing import Any

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.template.loader import render_to_string
from django.utils.translation import gettext_lazy as _

from werewolf import engine
from werewolf.engine.rulesets import classic

from .services import Seating

_LINE = re.compile(r"^\s*(?P<name>[^<>,;]+?)\s*(?:[<,;]\s*(?P<email>[^<>\s,;]+)\s*>?)?\s*$")

SETUP_ERRORS = {
    "player_count": _("Classic games need between %(min)s and %(max)s players."),
    "too_many_wolves": _("Too many werewolves: they must be fewer than the other players."),
    "no_wolves": _("A game needs at least one werewolf."),
    "too_many_seers": _("There are not enough players for that many seers."),
    "bad_roles": _(
        "Deal the game's numbers (werewolves: %(wolves)s, seers: %(seers)s, and one Herbalist, Vigilante or Cupid "
        "each if the game has them) and a role to every player."
    ),
    "too_many_roles": _("There are not enough players for the werewolves, seers and special villagers together."),
    "bad_alpha": _("The alpha must be one of the werewolves."),
}
ROLE_CHOICES = [
    ("", "—"),
    ("wolf", _("Werewolf")),
    ("seer", _("Seer")),
    ("villager", _("Villager")),
    ("herbalist", _("Herbalist (wolfsbane)")),
    ("vigilante", _("Vigilante")),
    ("cupid", _("Cupid")),
]


def _helper(label: str) -> FormHelper:
    helper = FormHelper()
    helper.add_input(Submit("submit", label))
    return helper


class GameForm(forms.Form):
    """A classic game: who plays, how many wolves and seers, and how phases run."""

    name = forms.CharField(label=_("Game name"), max_length=120)
    players = forms.CharField(
        label=_("Players"),
        widget=forms.Textarea(
            attrs={"rows": 8, "placeholder": _("Ada <ada@example.org>\nBruno <bruno@example.org>\nChiara")}
        ),
        help_text=_(
            "One player a line: a name, then their email, as in “Ada &lt;ada@example.org&gt;”. "
            "Names must differ. Leave the email out for players you will enter cards for."
        ),
    )
    wolves = forms.IntegerField(
        label=_("Werewolves"),
        min_value=1,
        required=False,
        help_text=_("Empty for the usual: two, or three from 17 players."),
    )
    seers = forms.IntegerField(label=_("Seers"), min_value=0, initial=1)
    night_minutes = forms.IntegerField(
        label=_("Night length (minutes)"), min_value=1, initial=1440, help_text=_("1440 minutes is one day.")
    )
    day_minutes = forms.IntegerField(label=_("Day length (minutes)"), min_value=1, initial=1440)
    timezone = forms.ChoiceField(
        label=_("Time zone"), initial="UTC", help_text=_("Deadlines are shown in this time zone.")
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
        help_text=_("Assigning roles suits a group that knows each other well; new groups enjoy a random deal more."),
    )
    early_resolution = forms.BooleanField(
        label=_("Resolve a phase early when every card is in"), required=False, initial=True
    )
    day_deadline = forms.ChoiceField(
        label=_("At a day's deadline without a majority"),
        choices=[("no-lynch", _("Nobody is lynched")), ("plurality", _("The player with most votes is lynched"))],
        initial="no-lynch",
    )
    tie = forms.ChoiceField(
        label=_("When the most votes are tied"),
        choices=[("none", _("Nobody is lynched")), ("random", _("One of the tied players, drawn at random"))],
        initial="none",
    )
    start = forms.ChoiceField(
        label=_("The game starts with"),
        choices=[("night", _("A night")), ("day", _("A day (the first lynched player leaves the game)"))],
        initial="night",
    )
    first_night = forms.ChoiceField(
        label=_("First night"),
        choices=[
            ("normal", _("Normal: the wolves kill")),
            ("quiet", _("Quiet: the wolves meet and kill nobody; the Seer still inquires")),
        ],
        initial="normal",
    )
    missing_wolves = forms.ChoiceField(
        label=_("When no wolf hands in a list"),
        choices=[("nobody", _("Nobody is killed")), ("random", _("A random victim is killed"))],
        initial="nobody",
    )
    public_seer = forms.BooleanField(
        label=_("Announce whether the Seer saw a werewolf (without names)"), required=False
    )
    reveal_dead = forms.BooleanField(label=_("Reveal a dead player's role"), required=False, initial=True)
    wolfsbane = forms.ChoiceField(
        label=_("Wolfsbane"),
        choices=[
            ("none", _("None")),
            ("herb", _("One villager holds it: the wolves cannot kill the Herbalist")),
            ("doorstep", _("The Herbalist sprinkles one doorstep a night (Princeton variant)")),
        ],
        initial="none",
        required=False,
        help_text=_("Helps the village in small games; games may then end without a lynch deciding them."),
    )
    vigilante = forms.BooleanField(
        label=_("A Vigilante: one villager may shoot once a game at night, killing only a werewolf"),
        required=False,
    )
    cupid = forms.BooleanField(
        label=_("Cupid: on the first night one villager makes two players Lovers, who live and die together"),
        required=False,
    )
    thing = forms.BooleanField(
        label=_("“Thing”: the day tests a player (only a werewolf dies), the night converts a villager to the pack"),
        required=False,
        help_text=_("A very different game: look for changes in behaviour rather than hidden plots."),
    )
    dark_city = forms.BooleanField(
        label=_("Dark City: each night the wolves may also swap two villagers' cards"),
        required=False,
        help_text=_("A dead player's card then shows only whether it was a werewolf's."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["timezone"].choices = [(zone, zone) for zone in sorted(zoneinfo.available_timezones())]
        self.helper = _helper(_("Create the game"))

    def clean_players(self) -> list[Seating]:
        seats: list[Seating] = []
        seen: set[str] = set()
        for number, line in enumerate(self.cleaned_data["players"].splitlines(), start=1):
            if not line.strip():
                continue
            match = _LINE.match(line)
            if not match:
                raise ValidationError(
                    _("Line %(line)s is not “Name <email>”: %(text)s"), params={"line": number, "text": line.strip()}
                )
            name, email = match["name"].strip(), (match["email"] or "").strip()
            if email:
                try:
                    validate_email(email)
                except ValidationError:
                    raise ValidationError(
                        _("Line %(line)s: “%(email)s” is not an email address."),
                        params={"line": number, "email": email},
                    ) from None
            if name.casefold() in seen:
                raise ValidationError(_("Two players are called “%(name)s”: names must differ."), params={"name": name})
            seen.add(name.casefold())
            seats.append(Seating(name, email))
        if not classic.MIN_PLAYERS <= len(seats) <= classic.MAX_PLAYERS:
            raise ValidationError(
                SETUP_ERRORS["player_count"], params={"min": classic.MIN_PLAYERS, "max": classic.MAX_PLAYERS}
            )
        return seats

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        seats = data.get("players")
        if not seats or self.errors:
            return data
        try:
            data["options"] = engine.options("classic", self.option_values(), len(seats))
        except engine.SetupError as error:
            field = error.option if error.option in self.fields else None
            message = SETUP_ERRORS.get(error.code, _("These options do not fit together."))
            self.add_error(
                field, ValidationError(message, params={"min": classic.MIN_PLAYERS, "max": classic.MAX_PLAYERS})
            )
        return data

    def option_values(self) -> dict[str, Any]:
        data = self.cleaned_data
        values = {
            name: data[name]
            for name in (
                "seers",
                "day_deadline",
                "tie",
                "start",
                "first_night",
                "missing_wolves",
                "public_seer",
                "reveal_dead",
                "vigilante",
                "cupid",
                "dark_city",
                "thing",
            )
        }
        values["wolfsbane"] = data.get("wolfsbane") or "none"
        if data.get("wolves"):
            values["wolves"] = data["wolves"]
        return values


class SeatField(forms.TypedChoiceField):
    """A choice of seat. Any seat number passes the form; the engine judges whether the
    seat may be named, so a forged choice gets the engine's precise refusal."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(coerce=int, empty_value=None, **kwargs)

    def valid_value(self, value: Any) -> bool:
        return str(value).isdigit() or super().valid_value(value)


def words(template: str, context: dict[str, Any]) -> str:
    """Words a player reads, from a template (never from Python strings)."""
    return render_to_string(template, context).strip()


def card_word(word: str, **context: Any) -> str:
    """A word of the notecard form, from includes/notecard_words.html."""
    return words("includes/notecard_words.html", {"word": word, **context})


class NotecardForm(forms.Form):
    """The card a phase asks of one seat (see `engine.PhaseSpec`). `submit` names the
    button's word in includes/notecard_words.html."""

    phase = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args: Any, slot: engine.Slot, names: list[str], seat: int, submit: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slot = slot
        choices = [(str(choice), names[choice]) for choice in slot.choices]
        nobody = [("", card_word("none"))]
        if slot.ranked:
            for rank in range(1, len(choices) + 1):
                label = card_word("choice", rank=rank)
                self.fields[f"choice_{rank}"] = SeatField(label=label, required=False, choices=nobody + choices)
            if slot.swap:
                for number in (1, 2):
                    label = card_word("swap", number=number)
                    self.fields[f"swap_{number}"] = SeatField(label=label, required=False, choices=nobody + choices)
        elif slot.kind == "pair":
            for number in (1, 2):
                label = card_word("lover", number=number)
                self.fields[f"lover_{number}"] = SeatField(label=label, required=False, choices=nobody + choices)
        elif slot.kind in ("inquire", "protect", "shoot"):
            self.fields["target"] = SeatField(label=card_word(slot.kind), required=False, choices=nobody + choices)
        elif slot.kind == "vote":
            no_vote = [("", card_word("no_vote"))]
            self.fields["target"] = SeatField(label=card_word("vote"), required=False, choices=no_vote + choices)
        self.helper = _helper(card_word(submit))

    @staticmethod
    def initial_for(phase_id: int, card: engine.Order | None) -> dict[str, Any]:
        """Initial values that show the card counted now, so changing it starts from it."""
        initial: dict[str, Any] = {"phase": phase_id}
        if card is not None and card.kind == "kill":
            initial.update({f"choice_{rank}": target for rank, target in enumerate(card.targets, start=1)})
            initial.update({f"swap_{number}": seat for number, seat in enumerate(card.swap, start=1)})
        elif card is not None and card.kind == "pair":
            initial.update({f"lover_{number}": target for number, target in enumerate(card.targets, start=1)})
        elif card is not None and card.targets:
            initial["target"] = card.targets[0]
        return initial

    def order(self) -> engine.Order:
        data = self.cleaned_data
        if self.slot.ranked:
            ranked = [
                data[name]
                for name in sorted(self.fields, key=_rank)
                if name.startswith("choice_") and data.get(name) is not None
            ]
            swap = tuple(data[name] for name in ("swap_1", "swap_2") if data.get(name) is not None)
            return engine.Order(self.slot.kind, tuple(ranked), swap) if ranked or swap else engine.Order("sleep")
        if self.slot.kind == "pair":
            lovers = tuple(data[name] for name in ("lover_1", "lover_2") if data.get(name) is not None)
            return engine.Order("pair", lovers) if lovers else engine.Order("sleep")
        target = data.get("target")
        if self.slot.kind == "vote":
            return engine.Order("vote", () if target is None else (target,))
        if self.slot.kind in ("inquire", "protect", "shoot") and target is not None:
            return engine.Order(self.slot.kind, (target,))
        return engine.Order("sleep")


def _rank(name: str) -> int:
    return int(name.split("_")[1]) if name.startswith("choice_") else 0


class ExtendForm(forms.Form):
    action = forms.CharField(widget=forms.HiddenInput, initial="extend")
    phase = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=0)
    minutes = forms.IntegerField(
        label=_("Extend the deadline by (minutes)"), min_value=1, max_value=60 * 24 * 14, initial=60
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.helper = _helper(_("Extend"))


class AssignRolesForm(forms.Form):
    """The organiser's own deal: a role for every player, and the alpha if chosen."""

    def __init__(self, *args: Any, game: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game
        self.players = list(game.players.order_by("pk"))
        for player in self.players:
            self.fields[f"role_{player.pk}"] = forms.ChoiceField(
                label=player.name, choices=ROLE_CHOICES, required=True, initial=player.assigned_role
            )
        alpha = next((player.pk for player in self.players if player.assigned_alpha), "")
        self.fields["alpha"] = forms.TypedChoiceField(
            label=_("Alpha wolf"),
            choices=[("", _("Drawn at random among the werewolves"))] + [(p.pk, p.name) for p in self.players],
            coerce=int,
            empty_value=None,
            required=False,
            initial=alpha,
        )
        self.fields["action"] = forms.CharField(widget=forms.HiddenInput, initial="assign")
        self.helper = _helper(_("Save the roles"))

    def roles(self) -> dict[int, str]:
        return {player.pk: self.cleaned_data[f"role_{player.pk}"] for player in self.players}

    def refuse(self, error: engine.SetupError) -> None:
        message = SETUP_ERRORS.get(error.code, _("These options do not fit together."))
        self.add_error(None, ValidationError(message, params=self.game.options))


class SubstituteForm(forms.Form):
    name = forms.CharField(label=_("New player's name"), max_length=60)
    email = forms.EmailField(label=_("New player's email"), required=False)

    def __init__(self, *args: Any, taken: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.taken = {name.casefold() for name in taken}
        self.helper = _helper(_("Substitute"))

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if name.casefold() in self.taken:
            raise ValidationError(_("Another seat already has that name."))
        return name


class DemoForm(forms.Form):
    name = forms.CharField(label=_("Your name in the demo"), max_length=60, initial="You")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.helper = _helper(_("Start a demo game"))


class PaperCardsForm(forms.Form):
    """Every asked seat's card at once, in the notecard words (docs/orders.md), for the
    organiser who collected paper cards. Empty rows leave a seat's card as it is."""

    phase = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args: Any, seats: list[tuple[int, str, str]], submit_label: str, **kwargs: Any) -> None:
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
