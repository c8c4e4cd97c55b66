"""Mafia as the forums play it by post (docs/rules.md, Mafia), on the simple rulesets'
base (simple.py).

The town (Townspeople, a Cop who learns "town" or "mafia", a Doctor who protects one
player a night from the night's kills, a Vigilante with one shot that kills whoever it
hits, a Roleblocker who voids one player's night action) against the Mafia (Goons, and a
Godfather whom the Cop sees as town). The Mafia know each other from the start and choose
one kill a night together; one mafioso carries it out, and if that mafioso is roleblocked
the kill fails. The day votes in the open: a strict majority of the living ends it at
once; at the deadline the plurality eliminates, or nobody (as the game says); where the
organiser allows it, a vote for no elimination counts like a vote for a player and, if it
wins, nobody is eliminated. The town wins when no mafioso lives, the Mafia when they are
at least as many as everyone else.

Its words are its own (templates/rulesets/mafia/): it names no lineage, so what it leaves
unworded reads in the shared tree's neutral words, never in the werewolf games'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .. import rulings
from ..abilities import BLOCK, roleblock
from ..cards import Card, Field, Slot
from ..errors import SetupError
from ..events import Audience, Event
from ..night import DEATHS, JUDGE, Death, Night, Pipeline
from ..options import as_json, option, parse_options
from ..options import gettext_noop as _
from ..pack import victim as pack_victim
from ..people import AIMS, LESSONS, Aim, Lesson, Memory, died, found
from ..registry import register
from ..state import PhaseSpec, State
from ..table import Role, table
from .base import Advice, Capabilities, EventKinds
from .simple import DAY, INQUIRE, NO_ELIMINATION, PROTECT, SHOOT, VOTE, SimpleFamily

ID = "mafia"
MIN_PLAYERS = 5
MAX_PLAYERS = 30

TOWNSPERSON = "townsperson"
COP = "cop"
DOCTOR = "doctor"
VIGILANTE = "vigilante"
ROLEBLOCKER = "roleblocker"
GOON = "goon"
GODFATHER = "godfather"

TOWN = "town"
MAFIA = "mafia"

ROLES = table(
    (
        Role(GODFATHER, MAFIA, seen_as_wolf=False, counts_as_wolf=True, pack=True, prey=False, night="kill"),
        Role(GOON, MAFIA, seen_as_wolf=True, counts_as_wolf=True, pack=True, prey=False, night="kill"),
        Role(COP, TOWN, night="inquire"),
        Role(DOCTOR, TOWN, night="protect"),
        Role(VIGILANTE, TOWN, night="shoot"),
        Role(ROLEBLOCKER, TOWN, night="block"),
        Role(TOWNSPERSON, TOWN),
    )
)
"""The cast, in the order a setup lists it. `seen_as_wolf` is what the Cop learns
("mafia"): the Godfather is seen as town."""

CARRIER = Field("by", optional=True, word="BY", prune=True)
"""Who of the Mafia carries the kill out (a living mafioso); left out, the one who sent it."""
KILL = Card("kill", "KILL", (Field(), CARRIER))
"""The Mafia's kill: one target and, if they like, who carries it out (KILL Ada BY Bruno)."""
CARDS = (KILL, INQUIRE, PROTECT, SHOOT, BLOCK, VOTE, NO_ELIMINATION)

COUNTS = ("godfathers", "goons", "cops", "doctors", "vigilantes", "roleblockers")
"""The options that count the roles a setup deals, and the role each counts."""
COUNTED = dict(zip(COUNTS, (GODFATHER, GOON, COP, DOCTOR, VIGILANTE, ROLEBLOCKER), strict=True))

PRESETS: Mapping[str, Mapping[str, int]] = {
    "vanilla": {},
    "mini_cop": {"cops": 1},
    "mini_doctor": {"doctors": 1},
    "normal": {"cops": 1, "doctors": 1},
    "power": {"godfathers": 1, "cops": 1, "doctors": 1, "vigilantes": 1, "roleblockers": 1},
}
"""The setups forums know by name: what each deals besides its goons and townspeople."""
DEFAULT_PRESET = "normal"
"""The setup a game deals unless the organiser chooses another (the New game form's):
the forums' usual newcomers' game, which the balance lab finds near even with the talking
bots at its 13 players (docs/lab.md, Mafia), where vanilla is the Mafia's by its count."""
SUGGESTED: Mapping[str, int] = {"vanilla": 5, "mini_cop": 7, "mini_doctor": 7, "normal": 9, "power": 11}
"""The least players each preset is meant for (`advice` names a table below it)."""


def mafia_size(players: int) -> int:
    """The Mafia of a preset: about a quarter of the table (2 of 7, 3 of 13)."""
    return max(1, (players + 1) // 4)


def preset_counts(preset: str, players: int) -> dict[str, int]:
    """Each role count `preset` deals at a table of `players`: its powers, and goons to
    make the Mafia a quarter of the table with the Godfather."""
    counts = {name: 0 for name in COUNTS}
    counts.update(PRESETS[preset])
    counts["goons"] = mafia_size(players) - counts["godfathers"]
    return counts


_COUNT_HELP = _("Empty: as the setup says.")


@dataclass(frozen=True, slots=True, kw_only=True)
class MafiaOptions:
    """The options of a Mafia game; see docs/rules.md, Mafia for what each one does.
    The role counts have no default of their own: the setup (`preset`, listed first)
    fills in those the organiser leaves out."""

    preset: str = option(
        DEFAULT_PRESET,
        label=_("Setup"),
        help=_("The roles it deals; each count below may change it."),
        choices={
            "vanilla": _("Vanilla: goons and townspeople"),
            "mini_cop": _("Mini open setup with a Cop"),
            "mini_doctor": _("Mini open setup with a Doctor"),
            "normal": _("Mini normal: goons against a Cop and a Doctor"),
            "power": _("Power roles: a Godfather and goons against a Cop, a Doctor, a Vigilante and a Roleblocker"),
        },
    )
    goons: int = option(label=_("Goons"), help=_COUNT_HELP, least=0)
    godfathers: int = option(label=_("Godfathers (seen as town by the Cop)"), help=_COUNT_HELP, least=0)
    cops: int = option(label=_("Cops"), help=_COUNT_HELP, least=0)
    doctors: int = option(label=_("Doctors"), help=_COUNT_HELP, least=0)
    vigilantes: int = option(label=_("Vigilantes (one shot each)"), help=_COUNT_HELP, least=0)
    roleblockers: int = option(label=_("Roleblockers"), help=_COUNT_HELP, least=0)
    start: str = option(
        "day",
        label=_("The game starts with"),
        choices={"day": _("Day 1"), "night": _("Night 1 (the Mafia kill before anyone votes)")},
    )
    day_deadline: str = option(
        "plurality",
        label=_("At a day's deadline without a majority"),
        choices={
            "plurality": _("The player with most votes is eliminated"),
            "no-lynch": _("Nobody is eliminated: only a majority eliminates"),
        },
    )
    tie: str = option(
        "none",
        label=_("When the most votes are tied"),
        choices={"none": _("Nobody is eliminated"), "random": _("One of the tied players, drawn at random")},
    )
    no_elimination: bool = option(True, label=_("Players may vote for no elimination"))
    reveal_dead: bool = option(True, label=_("Reveal a dead player's role"))
    doctor_self: bool = option(False, label=_("The Doctor may protect themself"))
    doctor_repeat: bool = option(True, label=_("The Doctor may protect the same player two nights running"))
    tell_blocked: bool = option(
        False,
        label=_("Tell every roleblocked player they were blocked"),
        help=_("Otherwise only a blocked Cop is told: their check gives no result."),
    )


@dataclass(frozen=True, slots=True)
class MafiaState:
    """Mafia's own part of the state: each seat's role; the Mafia in order of rank (who
    decides when their cards disagree, and carries the kill out when nobody is named);
    the Vigilantes who have fired; `unmet` (always empty: the Mafia know each other from
    the deal); and `guarded`, last night's protections as (doctor, patient)."""

    VERSION: ClassVar[int] = 1

    roles: tuple[str, ...]
    pack: tuple[int, ...] = ()
    spent: tuple[int, ...] = ()
    unmet: tuple[int, ...] = ()
    guarded: tuple[tuple[int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "roles": list(self.roles),
            "pack": list(self.pack),
            "spent": list(self.spent),
            "unmet": list(self.unmet),
            "guarded": [list(pair) for pair in self.guarded],
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> MafiaState:
        return cls(
            roles=tuple(raw["roles"]),
            pack=tuple(int(x) for x in raw.get("pack", ())),
            spent=tuple(int(x) for x in raw.get("spent", ())),
            unmet=tuple(int(x) for x in raw.get("unmet", ())),
            guarded=tuple((int(doctor), int(patient)) for doctor, patient in raw.get("guarded", ())),
        )


class Mafia(SimpleFamily):
    """Mafia on the simple rulesets' base: its own are the cast and presets, the kill one
    mafioso carries out, the Cop's answer, the Doctor's protection, the vote for no
    elimination, and the Mafia's events (`mafia_met`, `mafia_chose`, `cop_checked`)."""

    id = ID
    capabilities = Capabilities(family=ID, rank=4, typical_table=13, vote_counts=24, lineage=())
    events: EventKinds = {
        "cop_checked": ("target",),
        "dawn_no_death": (),
        "day_ended": (),
        "eliminated": ("seat",),
        "game_over": (),
        "game_set_up": (),
        "killed": ("seat",),
        "mafia_chose": (),
        "mafia_met": ("mafia",),
        "role_dealt": (),
        "roleblocked": (),
        "ruling_kill_blocked": (),
        "ruling_kill_void": (),
        "ruling_pack_choice": (),
        "ruling_power_spent": (),
        "ruling_protected": (),
        "ruling_roleblocked": (),
        "ruling_tie_broken": (),
        "shot": ("seat",),
        "vigilante_fired": ("target",),
    }
    """The kinds of event Mafia writes, and those that tell a role: the Mafia's names
    (`mafia_met`), the Cop's answer, a Vigilante's hit (whether it killed), each death."""
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    roles = ROLES
    cards = CARDS
    state_type = MafiaState
    options_type = MafiaOptions
    SIDES = (TOWN, MAFIA)
    MEET_AT_NIGHTFALL = False
    DAY_DEATH = "eliminated"
    NO_ELIMINATION_VOTE = True
    CAUSES = ("eliminated", "shot")

    def __init__(self) -> None:
        self.night_steps = Pipeline(
            (
                ("block", _block),
                ("pack", self.choose_kill),
                ("cop", _cop),
                ("doctor", _doctor),
                ("vigilante", self.shoot_once),
                ("pack_kill", self.kill_victim),
                ("saves", _saves),
                (DEATHS, None),
                (JUDGE, None),
            )
        )
        """The night's actions act together at dawn, in this order: the roleblocks
        (a blocked player's action is void), the Mafia's choice and its carrier, the
        Cop's check, the Doctor's protection, the Vigilante's shot, the Mafia's kill,
        the kills the Doctor stopped; then the deaths and the end judged once."""

    # The setup.

    def options(self, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Check and complete the options for a table of `players`: the preset fills the
        role counts the organiser leaves out."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError("player_count", "players", players)
        preset = str(raw.get("preset", DEFAULT_PRESET))
        defaults = preset_counts(preset, players) if preset in PRESETS else {}
        options = parse_options(MafiaOptions, raw, defaults)
        checked = as_json(options)
        for name in COUNTS:
            if checked[name] < 0:
                raise SetupError("bad_option_value", name, checked[name])
        mafia = options.goons + options.godfathers
        if mafia < 1:
            raise SetupError("no_mafia", "goons", options.goons)
        if 2 * mafia >= players:
            raise SetupError("too_many_mafia", "goons", options.goons)
        if sum(checked[name] for name in COUNTS) > players:
            raise SetupError("too_many_roles", "players", players)
        if _decided_before_vote(options, players):
            raise SetupError("decided_before_vote")
        return checked

    def advice(self, options: Mapping[str, Any], players: int) -> tuple[Advice, ...]:
        """A preset below the table it is meant for."""
        preset = str(options["preset"])
        if players < SUGGESTED[preset]:
            return (Advice("below_suggestion", "preset", preset, SUGGESTED[preset]),)
        return ()

    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
        """The Mafia, then the town's powers, then townspeople for the rest."""
        cards: list[str] = []
        for name in COUNTS:
            cards += [COUNTED[name]] * int(options[name])
        return (*cards, *(TOWNSPERSON,) * (players - len(cards)))

    def set_up_summary(self, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        """The table's size, its setup and every role it deals (an open setup: the
        forum posts the role list), and how the day ends."""
        return {
            "players": players,
            "preset": options["preset"],
            **{name: int(options[name]) for name in COUNTS},
            "townspeople": players - sum(int(options[name]) for name in COUNTS),
            "day_deadline": options["day_deadline"],
            "no_elimination": bool(options["no_elimination"]),
        }

    def pack_formed(self, state: State) -> Event:
        """The Mafia learn who they are, in order of rank, with each one's role."""
        mafia = [seat for seat in state.rules.pack if state.alive[seat]]
        roles = [state.rules.roles[seat] for seat in mafia]
        return Event("mafia_met", {"mafia": mafia, "roles": roles}, Audience.of(*mafia))

    # The cards.

    def pack_slot(self, state: State, prey: tuple[int, ...]) -> Slot:
        """A mafioso's card: one target outside the Mafia, and the living mafioso who
        carries the kill out."""
        mafia = tuple(seat for seat in state.rules.pack if state.alive[seat])
        return Slot(KILL, (prey, tuple(sorted(mafia))))

    def power_slot(self, state: State, seat: int, row: Role, living: list[int]) -> Slot:
        """The Doctor protects a living player: not themself unless the game allows it,
        nor last night's patient unless it allows that; the other powers as the base's."""
        if row.night == "protect":
            refused = {seat} if not state.options["doctor_self"] else set()
            if not state.options["doctor_repeat"]:
                refused |= {patient for doctor, patient in state.rules.guarded if doctor == seat}
            return Slot(PROTECT, (tuple(other for other in living if other not in refused),))
        return super().power_slot(state, seat, row, living)

    def phase(self, state: State) -> PhaseSpec:
        """The base's; by day, where the game allows it, a vote for no elimination may be
        handed in instead of a VOTE."""
        if state.phase != "day" or state.over or not state.options["no_elimination"]:
            return super().phase(state)
        living = state.living()
        ballot = Slot(VOTE, (tuple(living),), instead=(NO_ELIMINATION,))
        return PhaseSpec(DAY, state.number, dict.fromkeys(living, ballot), step=state.step)

    def refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        """A dead name; a carrier who is not of the Mafia; a fellow mafioso as the
        target; last night's patient; the writer's own name."""
        if not state.alive[value]:
            return "target_dead"
        if field.name == CARRIER.name:
            return "carrier_not_mafia"
        if self.roles[state.rules.roles[seat]].pack and not self.roles[state.rules.roles[value]].prey:
            return "target_wolf"
        if value == seat:
            return "target_self"
        if any(doctor == seat and patient == value for doctor, patient in state.rules.guarded):
            return "protected_last_night"
        return "not_a_choice"

    # The night.

    def choose_kill(self, night: Night) -> None:
        """The Mafia's kill: the target every card names, else the highest-ranked
        mafioso's card's (the pack's rule, engine/pack.py); carried out by the mafioso
        that card (or, by consensus, the highest-ranked card with one) names after BY,
        else by whoever sent it. A roleblocked carrier carries out nothing: the kill fails.
        The living Mafia are told the kill and its carrier (`mafia_chose`), not whether it
        was blocked: the carrier is told so only where the game tells every blocked player."""
        state = night.state
        mafia = [seat for seat in state.rules.pack if state.alive[seat]]
        night.notes["pack"] = mafia
        target, how, decided_by = pack_victim(
            mafia, night.cards, quiet=False, prey=None, rng=night.rng, events=night.events
        )
        night.notes["victim"] = None
        if target is None:
            return
        sent = [seat for seat in mafia if seat in night.cards and night.cards[seat].targets[:1] == (target,)]
        if decided_by is not None:
            sent = [decided_by]
        named = [night.cards[seat].field(CARRIER.name) for seat in sent]
        carrier = next((by[0] for by in named if by and state.alive[by[0]]), sent[0])
        blockers = sorted(seat for seat, card in night.written(BLOCK.kind) if card.targets == (carrier,))
        night.tell("mafia_chose", {"target": target, "by": carrier, "how": how}, Audience.of(*mafia))
        if blockers:
            told = {event.data["seat"] for event in night.events if event.kind == "roleblocked"}
            if state.options["tell_blocked"] and carrier not in told:
                night.tell("roleblocked", {"seat": carrier}, Audience.of(carrier))
            night.events.append(rulings.ruling("kill_blocked", {"seat": target, "by": carrier, "blockers": blockers}))
            return
        night.notes["victim"] = target

    # Deaths and the end.

    def bury(self, state: State, deaths: Sequence[Death], events: list[Event]) -> State:
        """Apply the deaths of one moment, each announced once (its role shown if the
        game reveals the dead). The Mafia have no leader to pass on: their rank only
        settles disagreeing cards."""
        for seat, cause in deaths:
            state = self.announce(state, seat, cause, events)
        return state

    def lessons(self) -> Mapping[str, Lesson]:
        """What the bots learn: their role, the Mafia's members and whom they chose at
        night, the Cop's answers, each death whose role is shown (a Godfather's card shows
        a mafioso), and the setup's role counts."""
        rows = self.roles

        def mafioso(role: str) -> bool:
            return rows[role].side == MAFIA

        return {
            **{kind: lesson for kind, lesson in LESSONS.items() if kind in ("role_dealt", "day_ended")},
            "mafia_met": _met,
            "mafia_chose": _chose,
            "cop_checked": _checked,
            "game_set_up": _counted,
            "killed": died(mafioso, prey=True),
            **{cause: died(mafioso) for cause in self.CAUSES},
        }

    def aims(self) -> Mapping[str, Aim]:
        """The shared aims, and a roleblock's: it is aimed at a suspect."""
        return {**AIMS, BLOCK.kind: "hostile"}


def _decided_before_vote(options: MafiaOptions, players: int) -> bool:
    """Whether the Mafia win at the first dawn whatever anyone writes: a night start
    whose one kill brings them to parity, with nobody who could spoil it (a Doctor, a
    Vigilante, a Roleblocker)."""
    if options.start != "night" or options.doctors or options.vigilantes or options.roleblockers:
        return False
    mafia = options.goons + options.godfathers
    return mafia >= players - mafia - 1


# The night's own steps, in call order: see `Mafia.night_steps`.


def _block(night: Night) -> None:
    """The roleblocks (engine/abilities.py): a blocked player's action is void. As the
    forums do, a blocked player is told only where it cannot be helped (a Cop, whose
    check gives no result), unless the game tells every blocked player."""
    start = len(night.events)
    roleblock(night)
    if night.state.options["tell_blocked"]:
        return
    cards = {
        event.data["seat"]: event.data["card"] for event in night.events[start:] if event.kind == "ruling_roleblocked"
    }
    night.events[start:] = [
        event
        for event in night.events[start:]
        if event.kind != "roleblocked" or cards.get(event.data["seat"]) == INQUIRE.kind
    ]


def _cop(night: Night) -> None:
    """The Cop learns whether its target is of the Mafia, as the Cop sees it: a
    Godfather is seen as town."""
    for seat, card in night.written("inquire"):
        target = card.targets[0]
        mafia = ROLES[night.state.rules.roles[target]].seen_as_wolf
        night.tell("cop_checked", {"seat": seat, "target": target, "mafia": mafia}, Audience.of(seat))


def _doctor(night: Night) -> None:
    """The Doctor's patient survives the night's kills (the Mafia's and the Vigilante's);
    tonight's protections are kept, for the rule against protecting twice running. The
    Doctor is not told whether anyone was attacked."""
    guarded = []
    for seat, card in night.written("protect"):
        patient = card.targets[0]
        night.protected.add(patient)
        night.notes.setdefault("doctors", {}).setdefault(patient, seat)
        guarded.append((seat, patient))
    if guarded or night.state.rules.guarded:
        night.state = night.state.with_rules(guarded=tuple(guarded))


def _saves(night: Night) -> None:
    """The moderator reads each kill a protection stopped (a ruling)."""
    doctors: dict[int, int] = night.notes.get("doctors", {})
    for seat in dict.fromkeys(death[0] for death in night.kills if death[0] in night.protected):
        night.events.append(rulings.protected(seat, doctors.get(seat), "doctor"))


def _met(memory: Memory, data: Mapping[str, Any]) -> None:
    mafia = set(data["mafia"])
    memory.pack |= mafia
    memory.wolves |= mafia


def _chose(memory: Memory, data: Mapping[str, Any]) -> None:
    """The Mafia remember whom they chose: one who lives on was guarded (or the kill
    blocked), and they hunt another rather than the same door every night (the bots'
    shared `_spared`), as a table of people would."""
    if data.get("target") is not None:
        memory.chosen.append(data["target"])


def _checked(memory: Memory, data: Mapping[str, Any]) -> None:
    found(memory, data["target"], bool(data["mafia"]))
    memory.results.append((data["target"], bool(data["mafia"])))


def _counted(memory: Memory, data: Mapping[str, Any]) -> None:
    """The open setup's role list: each role's count (none dealt is a count too: a Cop
    claimed where the setup deals none is a lie), the Mafia's size, the Cop as the role
    whose answers the town takes as checks (the one a mafioso fake-claims), and the
    Doctor as the role its holder claims in its defence (and a mafioso fakes where no
    Cop is dealt)."""
    memory.counts.update({COUNTED[name]: int(data.get(name) or 0) for name in COUNTS})
    memory.foes = memory.counts[GOON] + memory.counts[GODFATHER]
    memory.inquiring = COP if memory.counts[COP] else ""
    memory.defence = DOCTOR if memory.counts[DOCTOR] else ""


RULESET = register(Mafia())
