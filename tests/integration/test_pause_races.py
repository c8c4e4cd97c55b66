"""A pause races the resolvers of a phase whose deadline has come (the beat's sweep, a
task timed for the deadline, several at once): the phase resolves at most once before
the pause, never while paused, and once after the resume, at the moved deadline."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from werewolf.games import pauses, services
from werewolf.games.models import Game, Phase

from .test_exactly_once import race, resolutions, running_game

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("attempt", range(3))
def test_a_pause_and_the_resolvers_at_the_same_moment(organiser, attempt: int) -> None:
    game = running_game(organiser)
    phase = game.current_phase()
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    results = race(
        lambda: pauses.pause(Game.objects.get(pk=game.pk)),
        *[lambda: services.resolve_phase(phase.pk, Phase.Resolution.DEADLINE)] * 2,
        services.sweep_due_phases,
        lambda: services.resolve_if_due(phase.pk),
    )
    assert not [result for result in results[1:] if isinstance(result, Exception)], results
    game.refresh_from_db()
    assert game.paused_at is not None  # the pause went through, before or after a resolution
    resolved_before = Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED
    assert resolutions(phase) == int(resolved_before)
    open_now = game.current_phase()
    Phase.objects.filter(pk=open_now.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.sweep_due_phases() == 0  # paused: nothing resolves, whatever is due
    assert Phase.objects.get(pk=open_now.pk).status == Phase.Status.OPEN
    pauses.resume(game)
    open_now.refresh_from_db()
    assert open_now.deadline > timezone.now() - timedelta(seconds=2)  # moved on by the pause
    Phase.objects.filter(pk=open_now.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    results = race(*[lambda: services.resolve_phase(open_now.pk, Phase.Resolution.DEADLINE)] * 3)
    assert sum(bool(result) for result in results) == 1
    assert resolutions(open_now) == 1
