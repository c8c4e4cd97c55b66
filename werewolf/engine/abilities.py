"""The night's steps for ability blocks (engine/characters.py), shared by every ruleset
that deals characters made of them: Luna Piena, whose whole cast is blocks, and Lupus in
Tabula, where an organiser's characters join the rulebook's specials.

A ruleset using these steps keeps, in its own state, `roles` (each seat's character),
`spent` (the one-use blocks used, as "seat:block") and `tokens` (the passed tokens, as
(token, effect, giver, holder)), and puts in `night.notes["character"]` a function
giving the character made of blocks that a seat holds (None for a character that is
not: the ruleset's own steps play it). Steps leave strikes in `night.notes["strikes"]`
as (seat, first): the ruleset's dawn step turns them into kills, the first ones before
the pack's victim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import rulings
from .cards import SLEEP, Card, Field
from .characters import (
    ACTS,
    IMMUNE,
    INSPECT_EXACT,
    KILL,
    ONE_SHOT_KILL,
    PASS_TOKEN,
    REVIVE,
    Block,
    Character,
)
from .events import Audience, Event
from .night import Death, Night
from .orders import Order
from .state import State

READ = Card("read", "READ", (Field(),))
SHOOT = Card("shoot", "SHOOT", (Field(),))
RAISE = Card("raise", "RAISE", (Field(),))
GIVE = Card("give", "GIVE", (Field(),))
BLOCK = Card("block", "BLOCK", (Field(),))
"""A roleblocker's card (`roleblock`), for a ruleset whose role table gives a role the
night card "block"; no shipped ruleset deals one yet."""
CARD_OF_BLOCK = ACTS
"""The card each acting block writes."""

Token = tuple[str, str, int, int]
CharacterAt = Callable[[int], Character | None]


def among(block: Block, seat: int, living: Sequence[int], dead: Sequence[int]) -> tuple[int, ...]:
    """Whom the block's card may name: the ghosts, any living player, or another."""
    if block.among == "ghosts":
        return tuple(dead)
    if block.among == "anyone":
        return tuple(living)
    return tuple(other for other in living if other != seat)


def spent(state: State, seat: int, block: Block) -> bool:
    """Whether the seat's one-use block has been used."""
    return block.one_use and f"{seat}:{block.kind}" in state.rules.spent


def usable(state: State, seat: int, block: Block | None) -> bool:
    """Whether the seat's acting block writes a card tonight: its nights, not spent,
    and a token not given yet."""
    if block is None or not block.acts_on(state.number) or spent(state, seat, block):
        return False
    return not (block.kind == PASS_TOKEN and any(token[2] == seat for token in state.rules.tokens))


def use(night: Night, seat: int, block: Block, targets: Sequence[int] = ()) -> None:
    """Spend a one-use block (on `targets`), ruled as spent."""
    if block.one_use:
        night.state = night.state.with_rules(spent=(*night.state.rules.spent, f"{seat}:{block.kind}"))
        night.events.append(rulings.power_spent(seat, block.token or block.kind, targets))


def acting(night: Night, kind: str) -> list[tuple[int, Order, Block]]:
    """The cards written for blocks of `kind` by the living characters whose acting block
    it is; a one-use block among them is spent now."""
    character_at: CharacterAt = night.notes["character"]
    found = []
    for seat, card in night.written(CARD_OF_BLOCK[kind]):
        character = character_at(seat)
        act = character.act if character is not None else None
        if act is not None and act.kind == kind and card.targets:
            found.append((seat, card, act))
            use(night, seat, act, card.targets)
    return found


def strike(night: Night, seat: int, first: bool = False) -> None:
    night.notes.setdefault("strikes", []).append((seat, first))


def slay(night: Night, pack: Sequence[int]) -> None:
    """A wolf with a one-shot kill among the pack (Luna Piena's Lara) slaughters the
    fellow wolf named after ALSO on the pack's list, once a game; called by the pack's
    step, after its choice."""
    character_at: CharacterAt = night.notes["character"]
    for seat in pack:
        card = night.cards.get(seat)
        character = character_at(seat)
        act = character.act if character is not None else None
        if card is None or act is None or act.kind != ONE_SHOT_KILL or not card.field("also"):
            continue
        target = card.field("also")[0]
        use(night, seat, act, (target,))
        night.tell("power_used", {"seat": seat, "power": "slay", "target": target}, Audience.of(seat))
        strike(night, target, act.first)


def read(night: Night) -> None:
    """An exact reading (the Fortune-teller's) learns its choice's character."""
    roles = night.state.rules.roles
    for seat, card, _ in acting(night, INSPECT_EXACT):
        target = card.targets[0]
        night.tell("character_read", {"seat": seat, "target": target, "role": roles[target]}, Audience.of(seat))


def shoot(night: Night) -> None:
    """A kill (every night) or a one-shot kill (the Torch, the Potion): its choice dies
    at dawn whatever protects it from the wolves."""
    for kind in (KILL, ONE_SHOT_KILL):
        for seat, card, block in acting(night, kind):
            target = card.targets[0]
            data = {"seat": seat, "power": block.token or block.kind, "target": target}
            night.tell("power_used", data, Audience.of(seat))
            strike(night, target, block.first)


def give(night: Night) -> None:
    """A passed token goes to its choice: the Portrait in secret (its giver and holder
    know), the Skull in public."""
    for seat, card, block in acting(night, PASS_TOKEN):
        holder = card.targets[0]
        night.state = night.state.with_rules(
            tokens=(*night.state.rules.tokens, (block.token, block.effect, seat, holder))
        )
        audience = Audience.public() if block.effect == "skull" else Audience.of(seat, holder)
        night.tell("token_given", {"token": block.token, "giver": seat, "holder": holder}, audience)


def spare(night: Night, victim: int) -> bool:
    """Whether the pack's victim is spared or replaced by what its blocks and tokens
    say: an immunity that holds (the wolves kill nobody: False is returned only when
    nothing of the kind applies), a first rising (the Undead), or a Portrait whose
    holder dies in its place. The ruleset has already weighed its own protections."""
    state = night.state
    character_at: CharacterAt = night.notes["character"]
    character = character_at(victim)
    immune = character.block(IMMUNE) if character is not None else None
    portrait = next((t for t in state.rules.tokens if t[1] == "portrait" and t[2] == victim), None)
    role = state.rules.roles[victim]
    if immune is not None and immune.times == 0:
        night.events.append(rulings.immune(victim, role, "unkillable"))
        return True
    if immune is not None and f"{victim}:{IMMUNE}" not in state.rules.spent:
        night.state = state.with_rules(spent=(*state.rules.spent, f"{victim}:{IMMUNE}"))
        night.tell("rose_again", {"seat": victim}, Audience.of(victim))
        night.events.append(rulings.immune(victim, role, "rises_once"))
        return True
    if portrait is not None and state.alive[portrait[3]]:
        night.state = state.with_rules(tokens=tuple(t for t in state.rules.tokens if t is not portrait))
        night.events.append(rulings.protected(victim, portrait[3], "portrait"))
        night.kills.append((portrait[3], "killed"))
        night.notes["victim"] = portrait[3]
        return True
    return False


def revive(night: Night) -> None:
    """A revival (the Necromancer's Zombie Hand) brings a ghost back to life, once."""
    for _, card, _ in acting(night, REVIVE):
        target = card.targets[0]
        if night.state.alive[target]:
            continue
        state = night.state
        night.state = state.evolve(alive=(*state.alive[:target], True, *state.alive[target + 1 :]))
        night.tell("revived", {"seat": target}, Audience.public())


def roleblock(night: Night) -> None:
    """A roleblock voids its target's night card: the seat a BLOCK card names writes
    nothing tonight, as if it had slept (its card set aside before the steps after this one
    read the night's cards; a pack member's list no longer counts towards the pack's
    choice). Blocks act together, first: a BLOCK card is never voided, so two roleblockers
    who block each other both block. A target whose card did something is told it did
    nothing (one that slept learns nothing), and the moderator reads who blocked which
    card (a ruling)."""
    blocked: dict[int, list[int]] = {}
    for seat, card in night.written("block"):
        if card.targets:
            blocked.setdefault(card.targets[0], []).append(seat)
    voided = {
        seat: by
        for seat, by in blocked.items()
        if seat in night.cards and night.cards[seat].kind not in (BLOCK.kind, SLEEP.kind)
    }
    if not voided:
        return
    for seat, by in sorted(voided.items()):
        night.tell("roleblocked", {"seat": seat}, Audience.of(seat))
        night.events.append(rulings.ruling("roleblocked", {"seat": seat, "by": by, "card": night.cards[seat].kind}))
    night.cards = {seat: card for seat, card in night.cards.items() if seat not in voided}
    night.by_kind = None


def taken_along(state: State, seat: int) -> list[Death]:
    """Who dies with `seat`: the holder of a Skull it gave."""
    return [
        (holder, "taken") for _token, effect, giver, holder in state.rules.tokens if effect == "skull" and giver == seat
    ]


def taken_rulings(state: State, deaths: Sequence[Death]) -> list[Event]:
    """The ruling for each death `taken_along` added to a moment's deaths (`state` still
    before them): whose Skull took its holder along."""
    dying = {seat for seat, _ in deaths}
    found = []
    for seat, cause in deaths:
        if cause != "taken":
            continue
        for name, effect, giver, holder in state.rules.tokens:
            if effect == "skull" and holder == seat and giver in dying:
                found.append(rulings.ruling("taken_along", {"seat": seat, "giver": giver, "token": name}))
                break
    return found


def skull_moves(state: State, events: list[Event]) -> tuple[Token, ...]:
    """After a lynching, the Skull moves from its holder to the next living player
    clockwise (not its giver); it is gone once its giver is dead."""
    moved: list[Token] = []
    for token in state.rules.tokens:
        name, effect, giver, holder = token
        if effect != "skull":
            moved.append(token)
            continue
        if not state.alive[giver]:
            continue
        seats = state.seats
        following = [(holder + step) % seats for step in range(1, seats)]
        after = next((seat for seat in following if state.alive[seat] and seat != giver), None)
        if after is None:
            moved.append(token)
            continue
        moved.append((name, effect, giver, after))
        events.append(Event("token_given", {"token": name, "giver": holder, "holder": after}, Audience.public()))
    return tuple(moved)
