"""Talk: one test per sentence of the channel rules (docs/rules.md, "Talk")."""

from __future__ import annotations

from werewolf import engine
from werewolf.engine import talk


def classic(players: int = 9, **options):
    state, _ = engine.setup("classic", engine.options("classic", options, players), players, 4)
    return state


def tabula(players: int = 13):
    state, _ = engine.setup("tabula", engine.options("tabula", {}, players), players, 4)
    return state


def roles(state) -> list[str]:
    return [engine.roles_of(state, seat)[0] for seat in range(state.seats)]


def by_name(state) -> dict[str, talk.Channel]:
    return {channel.name: channel for channel in talk.channels(state)}


def dead(state, *seats: int):
    for seat in seats:
        state = state.with_death(seat, reveal=False)
    return state


def test_everyone_reads_the_square_and_the_living_write_in_it() -> None:
    state = dead(classic(), 0)
    square = by_name(state)["square"]
    assert square.readers == frozenset(range(9))
    assert square.writers == frozenset(range(1, 9))
    assert talk.refusal(state, 1, "square", "Hello") is None
    assert talk.refusal(state, 0, "square", "Boo") == "dead"


def test_once_the_game_is_over_the_dead_talk_in_the_square_too() -> None:
    state = dead(classic(), 0).evolve(winner="village")
    assert talk.refusal(state, 0, "square", "Well played") is None


def test_the_pack_reads_the_den_and_its_living_wolves_write() -> None:
    state = classic()
    wolves = [seat for seat, role in enumerate(roles(state)) if role == "wolf"]
    den = by_name(state)["den"]
    assert den.readers == den.writers == frozenset(wolves)
    state = dead(state, wolves[0])
    assert talk.refusal(state, wolves[0], "den", "Still here") == "dead"
    assert wolves[0] in by_name(state)["den"].readers


def test_a_classic_den_is_open_by_day_too() -> None:
    state = classic(start="day")
    assert state.phase == "day"
    wolf = roles(state).index("wolf")
    assert talk.refusal(state, wolf, "den", "Who next?") is None


def test_a_tabula_den_opens_at_night_only() -> None:
    state = tabula()
    wolf = roles(state).index("wolf")
    assert talk.refusal(state, wolf, "den", "Tonight") is None
    day = state.evolve(phase="day")
    assert talk.refusal(day, wolf, "den", "By day") == "den_closed"


def test_a_seat_outside_a_group_is_told_only_that_it_has_no_such_channel() -> None:
    state = classic()
    villager = roles(state).index("villager")
    assert talk.refusal(state, villager, "den", "Let me in") == "no_channel"
    assert talk.refusal(state, villager, "nowhere", "Hello") == "no_channel"
    assert [channel.name for channel in talk.readable(state, villager)] == ["square"]


def test_the_lovers_have_a_channel_once_cupid_has_paired_them() -> None:
    state = classic(cupid=True)
    assert "lovers" not in by_name(state)
    paired = state.with_rules(lovers=(1, 5))
    lovers = by_name(paired)["lovers"]
    assert lovers.readers == lovers.writers == frozenset({1, 5})


def test_the_freemasons_have_their_lodge() -> None:
    state = tabula(13)
    masons = {seat for seat, role in enumerate(roles(state)) if role == "freemason"}
    assert len(masons) == 2
    assert by_name(state)["lodge"].readers == frozenset(masons)
    assert "lodge" not in by_name(tabula(12))


def test_the_dead_talk_among_themselves_and_the_living_never_read_them() -> None:
    state = dead(tabula(), 0, 1)
    ghosts = by_name(state)["ghosts"]
    assert ghosts.readers == ghosts.writers == frozenset({0, 1})
    assert talk.refusal(state, 0, "ghosts", "Boo") is None
    assert talk.refusal(state, 2, "ghosts", "Hello?") == "no_channel"
    assert talk.refusal(state, 0, "square", "I know who did it") == "dead"
    assert "ghosts" not in by_name(tabula())


def test_the_moderator_may_post_in_any_channel_that_exists() -> None:
    state = classic()
    assert talk.refusal(state, None, "den", "The moderator speaks") is None
    assert talk.refusal(state, None, "ghosts", "Nobody is dead yet") == "no_channel"


def test_a_post_is_not_empty_and_not_too_long() -> None:
    state = classic()
    assert talk.refusal(state, 1, "square", "  \n ") == "post_empty"
    assert talk.refusal(state, 1, "square", "x" * (talk.MAX_POST + 1)) == "post_too_long"
    assert talk.refusal(state, 1, "square", "x" * talk.MAX_POST) is None
