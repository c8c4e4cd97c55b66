"""A real Celery worker resolves phases at their deadlines, exactly once.

These start worker processes on the configured broker: the SQLite file of the embedded
defaults, or Redis in the second CI run. No eager mode anywhere here."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from werewolf.celery import app
from werewolf.games import services
from werewolf.games.models import Event, Phase

from ..web.play import NAMES
from .workers import Worker, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def real_tasks(settings):
    settings.WEREWOLF_INLINE_TASKS = False
    app.control.purge()
    yield
    app.control.purge()


@pytest.fixture
def workers(tmp_path, real_tasks):
    started: list[Worker] = []

    def start(count: int = 1, *, beat: bool = False) -> list[Worker]:
        new = [
            Worker(f"w{len(started) + i}", tmp_path / f"worker{len(started) + i}.log", beat=beat) for i in range(count)
        ]
        started.extend(new)
        for worker in new:
            worker.wait_ready()
        return new

    yield start
    for worker in started:
        log = worker.stop()
        assert "Traceback" not in log, log


def running_game(organiser, **timing):
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.create_game(
        organiser, name="Worker", seats=seats, options={"wolves": 2, "seers": 1}, seed=3, **timing
    )
    return services.start_game(game)


def phase_events(phase: Phase) -> list[str]:
    return list(Event.objects.filter(phase=phase).values_list("kind", flat=True))


def test_an_eta_task_resolves_a_phase_when_its_deadline_passes(organiser, workers) -> None:
    workers(1)
    game = running_game(organiser)
    phase = game.current_phase()
    deadline = timezone.now() + timedelta(seconds=3)
    Phase.objects.filter(pk=phase.pk).update(deadline=deadline)
    app.send_task("tasks.phases.resolve_due_phase", args=[phase.pk], eta=deadline)
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN
    assert wait_for(lambda: Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED, timeout=60)
    resolved = Phase.objects.get(pk=phase.pk)
    assert resolved.resolved_at >= deadline and resolved.resolution == Phase.Resolution.DEADLINE
    assert Phase.objects.filter(game=game).count() == 2


def test_the_beat_sweeper_resolves_what_is_due(organiser, workers) -> None:
    game = running_game(organiser)
    phase = game.current_phase()
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() + timedelta(seconds=2))
    workers(1, beat=True)  # no ETA task: only the sweeper can find it
    assert wait_for(lambda: Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED, timeout=60)


def test_two_workers_given_the_same_phase_resolve_it_once(organiser, workers) -> None:
    game = running_game(organiser)
    phase = game.current_phase()
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    for _ in range(4):
        app.send_task("tasks.phases.resolve_due_phase", args=[phase.pk])
        app.send_task("tasks.phases.sweep_due_phases")
    workers(2)
    assert wait_for(lambda: Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED, timeout=60)
    wait_for(lambda: False, timeout=3)  # let the duplicates run
    kinds = phase_events(Phase.objects.get(pk=phase.pk))
    assert kinds.count("pack_chose") == 1
    assert kinds.count("killed") + kinds.count("dawn_no_death") == 1
    assert Phase.objects.filter(game=game).count() == 2


def test_the_beat_reminds_the_seats_whose_card_is_not_in_once(organiser, workers) -> None:
    """A real beat and worker: a phase of ten minutes reaches its reminder time; each seat
    without a card gets one reminder (its outbox row), whatever the beat does next."""
    from werewolf.games.models import Dispatch

    game = running_game(organiser)
    phase = game.current_phase()
    now = timezone.now()
    # Opened ten minutes ago, due in a minute: inside its two-minute reminder lead.
    Phase.objects.filter(pk=phase.pk).update(opened_at=now - timedelta(minutes=10), deadline=now + timedelta(minutes=1))
    workers(1, beat=True)
    reminded = Dispatch.objects.filter(kind=Dispatch.Kind.REMINDER, phase=phase)
    assert wait_for(lambda: reminded.count() == 7, timeout=60)
    wait_for(lambda: False, timeout=3)  # a few more beats
    assert reminded.count() == 7
    assert len(set(reminded.values_list("player_id", flat=True))) == 7


def test_an_eta_task_redelivered_past_the_visibility_timeout_resolves_once(organiser, tmp_path, real_tasks) -> None:
    """On Redis, an ETA task a worker holds longer than the broker's visibility timeout
    is given to another worker too: both run it at the deadline, and the phase resolves
    once. (The SQLite broker of the first CI pass has no visibility timeout to pass.)"""
    from django.conf import settings

    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.skip("the visibility timeout is Redis's: this runs in the PostgreSQL + Redis pass")
    started = [Worker(f"v{n}", tmp_path / f"v{n}.log", env={"WEREWOLF_VISIBILITY_TIMEOUT": "1"}) for n in range(2)]
    try:
        for worker in started:
            worker.wait_ready()
        game = running_game(organiser)
        phase = game.current_phase()
        deadline = timezone.now() + timedelta(seconds=8)
        Phase.objects.filter(pk=phase.pk).update(deadline=deadline)
        app.send_task("tasks.phases.resolve_due_phase", args=[phase.pk], eta=deadline)
        assert wait_for(lambda: Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED, timeout=60)
        wait_for(lambda: False, timeout=4)  # let a redelivered copy run too
    finally:
        logs = [worker.stop() for worker in started]
    for log in logs:
        assert "Traceback" not in log, log
    received = sum(len(re.findall(r"resolve_due_phase\[[^\]]+\] received", log)) for log in logs)
    assert received >= 2, "the broker did not give the task out again: the test shows nothing"
    kinds = phase_events(Phase.objects.get(pk=phase.pk))
    assert kinds.count("pack_chose") == 1
    assert Phase.objects.filter(game=game).count() == 2


def test_a_worker_writes_json_lines_when_the_site_asks_for_them(organiser, tmp_path, real_tasks) -> None:
    """WEREWOLF_LOG_FORMAT=json: the worker's own lines (it is ready) and the app's (a
    phase resolved, with its game, phase and resolution) are JSON objects, as the web
    server's are, though Celery sets up a worker's logging itself."""
    game = running_game(organiser)
    phase = game.current_phase()
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    worker = Worker("json", tmp_path / "json.log", env={"WEREWOLF_LOG_FORMAT": "json"})
    try:
        worker.wait_ready()
        app.send_task("tasks.phases.resolve_due_phase", args=[phase.pk])
        assert wait_for(lambda: "resolved phase" in worker.log.read_text(), timeout=60)
    finally:
        log = worker.stop()
    assert "Traceback" not in log, log
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert any(line["message"].endswith(" ready.") for line in lines), log
    resolved = next(line for line in lines if line["message"].startswith("resolved phase"))
    assert resolved["logger"] == "werewolf.games.services" and resolved["level"] == "INFO"
    assert (resolved["game"], resolved["phase"], resolved["index"]) == (game.pk, phase.pk, 0)
    assert not [line for line in log.splitlines() if "resolved phase" in line and not line.startswith("{")]
