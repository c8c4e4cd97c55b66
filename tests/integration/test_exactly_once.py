"""A phase resolves once, whatever races: many resolvers at the same instant, a
majority and the organiser at once, a duplicate task, or a resolver that dies halfway."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from werewolf import engine
from werewolf.games import services, vote_counts
from werewolf.games.models import Event, Game, Phase, Post

from ..web.play import NAMES

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def running_game(organiser) -> Game:
    seats = [services.Seating(name) for name in NAMES[:7]]
    return services.start_game(services.create_game(organiser, name="Race", seats=seats, options={"wolves": 2}, seed=5))


def race(*jobs):
    """Run the jobs in threads released together; their results, or the exceptions."""
    barrier = threading.Barrier(len(jobs))
    results: list[object] = [None] * len(jobs)

    def runner(index: int, job) -> None:
        try:
            barrier.wait()
            results[index] = job()
        except Exception as failure:  # collected for the assertions
            results[index] = failure
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(index, job)) for index, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def resolutions(phase: Phase) -> int:
    kinds = list(Event.objects.filter(phase=phase).values_list("kind", flat=True))
    return kinds.count("killed") + kinds.count("dawn_no_death") + kinds.count("day_ended")


def test_many_resolvers_at_once_resolve_the_phase_once(organiser) -> None:
    game = running_game(organiser)
    phase = game.current_phase()
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    results = race(
        *[lambda: services.resolve_phase(phase.pk, Phase.Resolution.DEADLINE)] * 3,
        services.sweep_due_phases,
        lambda: services.resolve_if_due(phase.pk),
    )
    assert not [result for result in results if isinstance(result, Exception)], results
    assert sum(bool(result) for result in results) == 1
    assert resolutions(phase) == 1
    assert Phase.objects.filter(game=game).count() == 2


def test_a_majority_and_the_organiser_at_the_same_moment(organiser) -> None:
    game = running_game(organiser)
    services.resolve_now(game)  # night 1 over: a day is open
    state = Game.objects.get(pk=game.pk).engine_state
    living = state.living()
    target, voters = living[0], living[1:]
    majority = len(living) // 2 + 1
    for voter in voters[: majority - 1]:
        services.submit_order(game, voter, engine.Order("vote", (target,)))
    day = Game.objects.get(pk=game.pk).current_phase()
    last = voters[majority - 1]
    results = race(
        lambda: services.submit_order(game, last, engine.Order("vote", (target,)), phase_id=day.pk),
        lambda: services.resolve_now(game, day.index),
    )
    # Whichever came first resolved the day; the other, if late, is refused rather than
    # cutting the next night short or landing on it.
    refused = [result for result in results if isinstance(result, services.ServiceError)]
    assert len(refused) <= 1, results
    assert all(result.code in {"phase_moved_on", "phase_closed"} for result in refused), results
    assert resolutions(day) == 1, results
    assert Phase.objects.get(pk=day.pk).status == Phase.Status.RESOLVED
    assert Phase.objects.filter(game=game).count() == 3


def test_a_resolver_that_dies_halfway_leaves_the_phase_to_the_next(organiser, monkeypatch) -> None:
    game = running_game(organiser)
    phase = game.current_phase()
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))

    def crash(*args, **kwargs):
        raise SystemExit("worker killed")

    with monkeypatch.context() as patch:
        patch.setattr(services, "_open_phase", crash)
        with pytest.raises(SystemExit):
            services.sweep_due_phases()
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN
    assert not Event.objects.filter(phase=phase).exists()
    assert services.sweep_due_phases() == 1
    assert resolutions(phase) == 1


def test_a_vote_count_is_posted_once_by_ticks_and_a_resolution_at_once(organiser) -> None:
    game = running_game(organiser)
    services.resolve_now(game)  # night 1 over: a day is open
    Game.objects.filter(pk=game.pk).update(vote_count_hours=6)
    day = Game.objects.get(pk=game.pk).current_phase()
    tick = day.opened_at + timedelta(hours=6, seconds=1)
    results = race(*[lambda: vote_counts.post_due(tick)] * 4)
    assert not [result for result in results if isinstance(result, Exception)], results
    assert sum(results) == 1  # type: ignore[arg-type]
    Phase.objects.filter(pk=day.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    results = race(
        lambda: services.resolve_phase(day.pk, Phase.Resolution.DEADLINE),
        lambda: services.resolve_phase(day.pk, Phase.Resolution.DEADLINE),
        lambda: vote_counts.post_due(tick),
    )
    assert not [result for result in results if isinstance(result, Exception)], results
    keys = list(Post.objects.filter(phase=day).order_by("pk").values_list("key", flat=True))
    assert keys == [f"votecount:{day.pk}:1", f"votecount:{day.pk}:final"]
