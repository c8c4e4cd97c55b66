"""The pack: an alpha wolf with its order of succession, and the victim chosen from the
wolves' preference lists. Shared by every ruleset whose wolves write ranked lists
(classic, Tabula; Luna Piena next)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random

from . import rulings
from .errors import SetupError
from .events import Audience, Event
from .orders import Order
from .random import clockwise_distance
from .state import State


def succession(wolves: Sequence[int], alpha: int | None, seats: int, rng: Random) -> tuple[int, ...]:
    """The pack in order of succession: the alpha (drawn when not given), then the
    other wolves clockwise from it. An alpha who is not a wolf is `SetupError`."""
    if alpha is None:
        alpha = rng.choice(wolves)
    elif alpha not in wolves:
        raise SetupError("bad_alpha", "alpha", alpha)
    return tuple(sorted(wolves, key=lambda seat: clockwise_distance(alpha, seat, seats)))


Choice = tuple[int | None, str, int | None]
"""The victim (None: nobody), how it was chosen ("consensus", "rank", "random", "quiet",
"no_lists") and whose list decided (None unless by rank)."""


def victim(
    pack: Sequence[int],
    cards: Mapping[int, Order],
    *,
    quiet: bool,
    prey: Sequence[int] | None,
    rng: Random,
    events: list[Event] | None = None,
) -> Choice:
    """The pack's victim from the living wolves' lists (`pack` in order of succession):
    the name first on every list handed in, else the first name on the list of the
    highest-ranked wolf who handed one in. A `quiet` night takes nobody. With no list,
    nobody, or a uniformly random one of `prey` when the game says so (`prey` given).
    The choice is ruled (`rulings.pack_choice`) into `events`, when given."""
    if quiet:
        choice: Choice = (None, "quiet", None)
        lists: dict[int, tuple[int, ...]] = {}
    else:
        lists = {seat: cards[seat].targets for seat in pack if seat in cards and cards[seat].targets}
        choice = _choose(pack, lists, prey, rng)
    if events is not None:
        events.append(rulings.pack_choice(list(lists.items()), *choice))
    return choice


def _choose(
    pack: Sequence[int], lists: Mapping[int, tuple[int, ...]], prey: Sequence[int] | None, rng: Random
) -> Choice:
    if lists:
        firsts = {targets[0] for targets in lists.values()}
        if len(firsts) == 1:
            return firsts.pop(), "consensus", None
        decided_by = next(seat for seat in pack if seat in lists)
        return lists[decided_by][0], "rank", decided_by
    if prey is not None:
        return rng.choice(prey), "random", None
    return None, "no_lists", None


def alpha(state: State) -> int | None:
    """The living wolf first in the succession (`state.rules.pack`), if any."""
    for seat in state.rules.pack:
        if state.alive[seat]:
            return int(seat)
    return None


def bury(state: State, deaths: Sequence[tuple[int, str]], events: list[Event]) -> State:
    """Apply and announce the deaths of one moment, each by its cause (the card stays
    hidden unless the game's `reveal_dead`); if the alpha was among them, the role
    passes down the succession and the living wolves are told, once. For rulesets whose
    state keeps `roles` and `pack` (Tabula, Luna Piena)."""
    if not deaths:
        return state
    reveal = bool(state.options["reveal_dead"])
    old_alpha = alpha(state)
    roles = state.rules.roles
    for seat, cause in deaths:
        state = state.with_death(seat, reveal=reveal)
        events.append(Event(cause, {"seat": seat, "role": roles[seat] if reveal else None}, Audience.public()))
    new_alpha = alpha(state)
    if old_alpha is not None and new_alpha is not None and new_alpha != old_alpha:
        living_pack = [wolf for wolf in state.rules.pack if state.alive[wolf]]
        events.append(Event("alpha_passed", {"alpha": new_alpha, "pack": living_pack}, Audience.of(*living_pack)))
    return state
