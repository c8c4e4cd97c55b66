"""The pack: an alpha wolf with its order of succession, and the victim chosen from the
wolves' preference lists. Shared by every ruleset whose wolves write ranked lists
(classic, Tabula; Luna Piena next)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random

from .errors import SetupError
from .orders import Order
from .random import clockwise_distance


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
    pack: Sequence[int], cards: Mapping[int, Order], *, quiet: bool, prey: Sequence[int] | None, rng: Random
) -> Choice:
    """The pack's victim from the living wolves' lists (`pack` in order of succession):
    the name first on every list handed in, else the first name on the list of the
    highest-ranked wolf who handed one in. A `quiet` night takes nobody. With no list,
    nobody, or a uniformly random one of `prey` when the game says so (`prey` given)."""
    if quiet:
        return None, "quiet", None
    lists = {seat: cards[seat].targets for seat in pack if seat in cards and cards[seat].targets}
    if lists:
        firsts = {targets[0] for targets in lists.values()}
        if len(firsts) == 1:
            return firsts.pop(), "consensus", None
        decided_by = next(seat for seat in pack if seat in lists)
        return lists[decided_by][0], "rank", decided_by
    if prey is not None:
        return rng.choice(prey), "random", None
    return None, "no_lists", None
