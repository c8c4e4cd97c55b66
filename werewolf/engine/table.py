"""Role tables: each ruleset's roles as rows of data.

Code asks a role's row, never its name: "is this a wolf?" is `row.seen_as_wolf` for the
Seer, `row.counts_as_wolf` for the end check, `row.pack` for who writes the kill list,
`row.prey` and `row.pack_can_kill` for the wolves' victim. A ruleset's rows are its whole
cast; a Luna Piena character built from ability blocks is one more row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Role:
    """One role.

    - `side`: who it wins with ("village", "wolves", "hamster"...);
    - `seen_as_wolf`: what the Seer learns of it; `medium_sees_wolf`: what the Medium
      learns of it once it is lynched;
    - `counts_as_wolf`: whether it counts with the wolves when parity is judged;
    - `pack`: it meets the pack and writes the wolves' kill list;
    - `prey`: the wolves may name it on their list; `pack_can_kill`: it dies when chosen;
    - `night`: the card kind it writes at night (None: SLEEP); `from_night` the first
      night it does so, `last_night` the last (0: every night after);
    - `called_at`: the night step that reads its card, where neither its name nor its card
      kind names the step (the moderator's script lists the night by steps).
    """

    name: str
    side: str
    seen_as_wolf: bool = False
    medium_sees_wolf: bool = False
    counts_as_wolf: bool = False
    pack: bool = False
    prey: bool = True
    pack_can_kill: bool = True
    night: str | None = None
    from_night: int = 1
    last_night: int = 0
    called_at: str = ""


def table(roles: Iterable[Role]) -> Mapping[str, Role]:
    """A ruleset's roles by name, in the order given."""
    rows = {role.name: role for role in roles}
    return rows
