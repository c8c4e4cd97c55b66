"""A small deadline storm: a hundred games due at the same instant, every card in, two
real worker processes (one with the beat) on the configured database and broker. Every
phase is resolved once, the next phase opened once, and each player's results are queued
once; no time is asserted (benchmarks/ measures that)."""

from __future__ import annotations

from datetime import timedelta
from random import Random

import pytest
from aiosmtpd.controller import Controller
from django.db.models import Count
from django.utils import timezone

from werewolf.engine.simulate import bot_orders
from werewolf.games import services
from werewolf.games.models import Dispatch, Event, Phase

from ..web.play import NAMES
from .test_celery import real_tasks, workers  # noqa: F401  (fixtures)
from .test_smtp import Pipelining, free_port
from .workers import Worker, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

GAMES = 100
PLAYERS = 7


def test_a_hundred_deadlines_at_once_resolve_each_phase_once(organiser, workers) -> None:  # noqa: F811
    rng = Random(5)
    games = []
    for number in range(GAMES):
        seats = [services.Seating(name, f"{name.lower()}.{number}@example.org") for name in NAMES[:PLAYERS]]
        game = services.start_game(
            services.create_game(
                organiser, name=f"Storm {number}", seats=seats, options={}, seed=number, early_resolution=False
            )
        )
        services.submit_orders(game, bot_orders(game.engine_state, rng))
        games.append(game)
    first = Phase.objects.filter(index=0, game__in=games)
    first.update(deadline=timezone.now() + timedelta(seconds=2))
    workers(1, beat=True)
    workers(1)
    assert wait_for(lambda: not first.filter(status=Phase.Status.OPEN).exists(), timeout=240), (
        f"{first.filter(status=Phase.Status.OPEN).count()} of {GAMES} phases still open"
    )
    assert first.filter(status=Phase.Status.RESOLVED).count() == GAMES
    opened = Phase.objects.filter(game__in=games).values("game").annotate(phases=Count("pk"))
    assert {row["phases"] for row in opened} == {2}
    chose = Event.objects.filter(game__in=games, kind="pack_chose").values("game").annotate(n=Count("pk"))
    assert {row["n"] for row in chose} == {1} and len(chose) == GAMES
    results = Dispatch.objects.filter(kind=Dispatch.Kind.PHASE, phase__in=first)
    assert results.count() == GAMES * PLAYERS
    assert results.values("player").distinct().count() == GAMES * PLAYERS


def test_the_sweep_resolves_the_phases_itself_when_the_broker_takes_nothing(organiser, settings, monkeypatch) -> None:
    from werewolf.celery import app

    settings.WEREWOLF_INLINE_TASKS = False
    seats = [services.Seating(name) for name in NAMES[:PLAYERS]]
    game = services.start_game(services.create_game(organiser, name="No broker", seats=seats, options={}, seed=1))
    Phase.objects.filter(game=game).update(deadline=timezone.now() - timedelta(seconds=1))

    def refuse(*args, **kwargs):
        raise ConnectionError("the broker is down")

    monkeypatch.setattr(app, "send_task", refuse)
    resolve = services.resolve_phase

    def broken(*args, **kwargs):
        raise RuntimeError("the resolution failed")

    monkeypatch.setattr(services, "resolve_phase", broken)
    assert services.fan_out_due_phases() == 0  # neither handed out nor resolved ...
    monkeypatch.setattr(services, "resolve_phase", resolve)
    assert services.fan_out_due_phases() == 1  # ... so the next sweep tries it again
    assert Phase.objects.get(game=game, index=0).status == Phase.Status.RESOLVED


def test_a_handed_out_phase_is_handed_out_again_only_once_its_task_may_be_lost(
    organiser, settings, monkeypatch
) -> None:
    """A storm that outlasts the sweep's interval: the phases still waiting in the queue
    are not handed out again at each sweep, only after WEREWOLF_HAND_OUT_AGAIN_SECONDS
    (a task lost with a broker that restarted empty), or at once when the phase's
    deadline was moved since it was handed out."""
    from werewolf.celery import app

    settings.WEREWOLF_INLINE_TASKS = False
    settings.WEREWOLF_HAND_OUT_AGAIN_SECONDS = 60
    seats = [services.Seating(name) for name in NAMES[:PLAYERS]]
    game = services.start_game(services.create_game(organiser, name="Handed", seats=seats, options={}, seed=1))
    now = timezone.now()
    Phase.objects.filter(game=game).update(deadline=now - timedelta(seconds=1))
    sent: list[int] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **kwargs: sent.append(args[0]))
    phase = game.current_phase()

    assert services.fan_out_due_phases(now) == 1 and sent == [phase.pk]
    assert services.fan_out_due_phases(now + timedelta(seconds=1)) == 0  # the next sweep: still queued
    assert services.fan_out_due_phases(now + timedelta(seconds=59)) == 0
    assert services.fan_out_due_phases(now + timedelta(seconds=61)) == 1  # lost, perhaps: again
    assert sent == [phase.pk, phase.pk]

    # Extended after it was handed out, then due again: handed out at once.
    later = now + timedelta(seconds=62)
    Phase.objects.filter(pk=phase.pk).update(deadline=later)
    assert services.fan_out_due_phases(later) == 1
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.OPEN  # handed out, not resolved here


def test_a_storm_is_handed_out_in_batches_and_each_phase_resolved_once(organiser, settings, monkeypatch) -> None:
    """Many phases due at once: a task takes several (Celery's own work paid once for
    them), every phase is in one batch, and a batch run twice (a task redelivered)
    resolves nothing the second time; a phase that fails does not stop the others."""
    from tasks.phases import resolve_due_phases
    from werewolf.celery import app

    settings.WEREWOLF_INLINE_TASKS = False
    monkeypatch.setattr(services, "HAND_OUT_TASKS", 2)  # (five phases: batches of two)
    games = []
    for number in range(5):
        seats = [services.Seating(name) for name in NAMES[:PLAYERS]]
        games.append(services.start_game(services.create_game(organiser, name=f"B{number}", seats=seats, options={})))
    due = Phase.objects.filter(game__in=games, index=0)
    due.update(deadline=timezone.now() - timedelta(seconds=1))
    sent: list[tuple[str, list]] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **kwargs: sent.append((name, args)))

    assert services.fan_out_due_phases() == 5
    batches = [args[0] if name.endswith("phases") else args for name, args in sent]
    assert [len(batch) for batch in batches] == [2, 2, 1]
    assert sorted(pk for batch in batches for pk in batch) == sorted(due.values_list("pk", flat=True))
    assert [name for name, _ in sent] == ["tasks.phases.resolve_due_phases"] * 2 + ["tasks.phases.resolve_due_phase"]

    resolve = services.resolve_phase
    broken = batches[0][0]

    def failing(phase_id, *args, **kwargs):
        if phase_id == broken:
            raise RuntimeError("the resolution failed")
        return resolve(phase_id, *args, **kwargs)

    monkeypatch.setattr(services, "resolve_phase", failing)
    assert resolve_due_phases.run(batches[0]) == 1  # the other phase of the batch is resolved
    monkeypatch.setattr(services, "resolve_phase", resolve)
    assert resolve_due_phases.run(batches[0]) == 1  # run again: only the one that failed
    assert resolve_due_phases.run(batches[0]) == 0
    assert resolve_due_phases.run(batches[1]) == 2
    assert not due.filter(status=Phase.Status.OPEN).exclude(pk__in=batches[2]).exists()
    assert Event.objects.filter(game__in=games, phase__index=0).values("phase").distinct().count() == 4


class Peers(Pipelining):
    """An SMTP server that notes each message's Message-ID and the connection it came on."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, tuple[str, int]]] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        headers = envelope.content.split(b"\r\n\r\n", 1)[0].decode(errors="replace")
        message_id = next(line for line in headers.split("\r\n") if line.lower().startswith("message-id:"))
        self.seen.append((message_id.split(":", 1)[1].strip(), session.peer))
        return "250 OK"


def test_a_worker_mails_one_phase_after_another_over_one_smtp_connection(organiser, real_tasks, tmp_path) -> None:  # noqa: F811
    """Each phase's mails leave on the connection the worker kept from the phase before
    (werewolf/mail/kept.py), and every mail arrives once."""
    port = free_port()
    peers = Peers()
    controller = Controller(peers, hostname="127.0.0.1", port=port)
    controller.start()
    mail = {"WEREWOLF_EMAIL": "smtp", "WEREWOLF_EMAIL_HOST": "127.0.0.1", "WEREWOLF_EMAIL_PORT": str(port)}
    worker = Worker("kept", tmp_path / "kept.log", beat=True, env=mail)
    try:
        worker.wait_ready()
        games = []
        for number in range(20):
            seats = [services.Seating(name, f"{name.lower()}.{number}@example.org") for name in NAMES[:PLAYERS]]
            game = services.start_game(
                services.create_game(
                    organiser, name=f"Kept {number}", seats=seats, options={}, seed=number, early_resolution=False
                )
            )
            services.submit_orders(game, bot_orders(game.engine_state, Random(number)))
            games.append(game)
        first = Phase.objects.filter(index=0, game__in=games)
        # (the welcomes go first; then every night ends at once)
        assert wait_for(lambda: len(peers.seen) >= 20 * PLAYERS, timeout=120), len(peers.seen)
        first.update(deadline=timezone.now())
        expected = 20 * PLAYERS * 2
        assert wait_for(lambda: len(peers.seen) >= expected, timeout=180), len(peers.seen)
    finally:
        log = worker.stop()
        controller.stop()
    assert "Traceback" not in log, log
    ids = [message_id for message_id, _ in peers.seen]
    assert len(ids) == len(set(ids)) == expected
    results = set(Dispatch.objects.filter(phase__in=first).values_list("message_id", flat=True))
    connections = {peer for message_id, peer in peers.seen if message_id in results}
    assert len(results) == 20 * PLAYERS
    assert len(connections) == 1, connections
