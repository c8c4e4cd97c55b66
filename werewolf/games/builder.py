"""The character builder: an organiser's character made of the engine's ability blocks.

`CharacterForm` holds what the character is (its name, side, how the Seer sees it...),
`BlockFormSet` its abilities, one block a row; `definition` joins them into the engine's
JSON, which `engine.characters.parse` checks. A definition the engine cannot run is
refused with the reason, in words the organiser can act on.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from werewolf import engine
from werewolf.engine import characters

from .models import Character

SIDE_CHOICES = [
    ("village", _("The humans (the village)")),
    ("wolves", _("The werewolves")),
    ("alone", _("Alone: it wins by itself")),
]
BLOCK_CHOICES = [
    ("", _("(no ability)")),
    ("inspect", _("Inspect: learns whether a player is seen as a werewolf (INQUIRE)")),
    ("inspect_exact", _("Inspect exactly: learns a player's character (READ)")),
    ("seance", _("Seance: learns whether the last player lynched was seen as a werewolf")),
    ("protect", _("Protect: the wolves' victim, if named, does not die (PROTECT)")),
    ("kill", _("Kill: its choice dies at dawn, every night it acts (SHOOT)")),
    ("one_shot_kill", _("One-shot kill: the same, once a game (SHOOT; a wolf's: KILL ... ALSO)")),
    ("revive", _("Revive: a ghost returns to life, once a game (RAISE)")),
    ("mark", _("Mark: its choice is a suspect at the next accusation (OWL)")),
    ("pass_token", _("Pass a token: on the nights it acts, gives a token to a player (GIVE)")),
    ("know_group", _("Know a group: knows the others of its group from the start")),
    ("immune", _("Immune: the wolves cannot kill it")),
    ("frail", _("Frail: dies when the Seer names it")),
    ("sole_winner", _("Sole winner: alive at the end, it wins alone")),
]
AMONG_CHOICES = [
    ("others", _("another living player")),
    ("anyone", _("any living player, itself included")),
    ("ghosts", _("a ghost (revive only)")),
    ("pack", _("a fellow wolf (a wolf's one-shot kill only)")),
]
EFFECT_CHOICES = [
    ("", _("(none)")),
    ("portrait", _("Portrait: the first time the wolves kill the giver, the holder dies instead")),
    ("skull", _("Skull: public, moves on after each lynching; the holder dies with the giver")),
]
REFUSALS = {
    "bad_name": _("A name is letters, digits, spaces, hyphens and apostrophes, up to 40, starting with a letter."),
    "bad_side": _("Choose the side the character wins with."),
    "repeated_block": _("An ability is given twice: keep one row of each kind."),
    "two_night_cards": _(
        "A character writes one card a night: give it one ability that writes a card (a wolf may have a one-shot "
        "kill among the pack beside the kill list)."
    ),
    "pack_not_wolf": _("A character that hunts with the pack is on the werewolves' side and counts as a werewolf."),
    "sole_winner_not_alone": _("Only a character alone can win alone: choose the side “Alone”."),
    "alone_never_wins": _("A character alone wins only as a sole winner: add that ability."),
    "bad_night": _("The nights are wrong: the first night is 1 or later, and the last (if any) is not before it."),
    "bad_among": _(
        "Whom the card may name does not fit that ability: a ghost only for a revival, a fellow wolf only for a "
        "wolf's one-shot kill, and no one for an ability that writes no card."
    ),
    "trait_takes_no_card": _("That ability writes no card: leave whom it names, its token and its effect empty."),
    "token_without_effect": _("A token passed needs a name and an effect; other abilities take no effect."),
    "group_without_name": _("Name the group in lowercase letters (e.g. lodge; pack to know the werewolves)."),
    "knows_own_pack": _("A wolf of the pack knows the pack already: remove “know the group pack”."),
    "immune_pack": _("A wolf of the pack cannot be immune to the wolves."),
    "bad_value": _("A value does not fit that ability: clear what it does not use."),
    "unknown_block": _("Choose an ability from the list."),
    "unknown_field": _("That definition has a field the engine does not know."),
    "not_a_definition": _("That is not a character's definition."),
}


# (Django's ModelForm is not subscriptable at run time, so its model stays unnamed here.)
class CharacterForm(forms.ModelForm):  # type: ignore[type-arg]
    """What a character is; its abilities are the block rows beside it."""

    side = forms.ChoiceField(label=_("Side"), choices=SIDE_CHOICES)
    seen_as_wolf = forms.BooleanField(label=_("The Seer sees a werewolf"), required=False)
    counts_as_wolf = forms.BooleanField(
        label=_("Counts as a werewolf when the wolves are counted against the living"), required=False
    )
    pack = forms.BooleanField(label=_("Hunts with the pack (writes the wolves' list)"), required=False)
    repeat = forms.BooleanField(label=_("May be dealt more than once"), required=False)

    class Meta:
        model = Character
        fields = ["name"]
        help_texts = {
            "name": _(
                "What the players read. To change how this edition plays one of its characters, use its id "
                "instead: inquisitor, fortune_teller, undead, lara, jekyll, dorian, necromancer, werecow, hamlet..."
            )
        }

    def __init__(self, *args: Any, organiser: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.organiser = organiser
        if self.instance.pk:
            raw = self.instance.definition
            for flag in ("seen_as_wolf", "counts_as_wolf", "pack", "repeat"):
                self.fields[flag].initial = bool(raw.get(flag))
            self.fields["side"].initial = raw.get("side")

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        clash = Character.objects.filter(organiser=self.organiser, name=name).exclude(pk=self.instance.pk)
        if clash.exists():
            raise ValidationError(_("You already have a character of that name."))
        return name


class BlockForm(forms.Form):
    kind = forms.ChoiceField(label=_("Ability"), choices=BLOCK_CHOICES, required=False)
    from_night = forms.IntegerField(label=_("From night"), min_value=1, max_value=99, initial=1, required=False)
    last_night = forms.IntegerField(
        label=_("Last night"), min_value=0, max_value=99, initial=0, required=False, help_text=_("0: no last night")
    )
    among = forms.ChoiceField(label=_("Its card may name"), choices=AMONG_CHOICES, initial="others", required=False)
    once = forms.BooleanField(label=_("Once a game"), required=False)
    token = forms.CharField(label=_("Token"), max_length=40, required=False, help_text=_("e.g. torch, potion"))
    group = forms.CharField(label=_("Group"), max_length=40, required=False)
    effect = forms.ChoiceField(label=_("Token's effect"), choices=EFFECT_CHOICES, required=False)
    first = forms.BooleanField(label=_("Strikes before the wolves' victim"), required=False)
    deadly_from = forms.IntegerField(
        label=_("Deadly from this many players"), min_value=0, max_value=99, initial=0, required=False
    )
    times = forms.IntegerField(
        label=_("Holds this many times"), min_value=0, max_value=9, initial=0, required=False, help_text=_("0: always")
    )

    def block(self) -> dict[str, Any] | None:
        """The block as the engine's JSON, its defaults left out (None: an empty row)."""
        data = self.cleaned_data
        if not data.get("kind"):
            return None
        raw: dict[str, Any] = {"kind": data["kind"]}
        defaults = characters.Block(data["kind"])
        for name in ("from_night", "last_night", "among", "once", "token", "group", "effect", "first"):
            value = data.get(name)
            if value in (None, ""):
                continue
            value = value.strip() if isinstance(value, str) else value
            if value != getattr(defaults, name):
                raw[name] = value
        for name in ("deadly_from", "times"):
            if data.get(name):
                raw[name] = data[name]
        return raw


BlockFormSet = forms.formset_factory(BlockForm, extra=3, max_num=len(characters.BLOCKS), validate_max=True)


def initial_blocks(definition: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(block) for block in definition.get("blocks", [])]


def definition(form: CharacterForm, blocks: Any) -> dict[str, Any] | None:
    """The character as the engine's JSON, checked; None, with the form's error set,
    when the engine cannot run it."""
    data = form.cleaned_data
    raw: dict[str, Any] = {"name": data["name"], "side": data["side"]}
    for flag in ("seen_as_wolf", "counts_as_wolf", "pack", "repeat"):
        if data.get(flag):
            raw[flag] = True
    raw["blocks"] = [block for block in (row.block() for row in blocks.forms) if block is not None]
    try:
        engine.characters.parse(raw)
    except engine.characters.DefinitionError as refused:
        form.add_error(None, ValidationError(REFUSALS.get(refused.code, REFUSALS["bad_value"])))
        return None
    return raw
