"""The outbox, over real SMTP on loopback: every mail once, any display name, and a
failure kept on its own row (retried later, shown to the organiser) that never holds up
another player's mail."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from werewolf.games import services
from werewolf.games.models import Dispatch, Player
from werewolf.mail import outbound

from ..web.play import NAMES
from .test_smtp import smtp  # noqa: F401  (the loopback SMTP server fixture)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

Status = Dispatch.Status


def start(organiser, seats, name="Outbox"):
    return services.start_game(services.create_game(organiser, name=name, seats=seats, options={"wolves": 2}))


def addressed(smtp) -> list[str]:  # noqa: F811
    return [message["To"].addresses[0].addr_spec for message in smtp.messages]


def test_any_display_name_is_written_and_nobody_is_held_up(organiser, smtp) -> None:  # noqa: F811
    names = ["Anna [3B]", "Team: Red", "a@b", "Ann\\", 'Zoë "Z" O\'Neil', "Bo;Lo", "Cy"]
    seats = [services.Seating(name, f"p{n}@example.org") for n, name in enumerate(names)]
    game = start(organiser, seats)
    # A name with a line break and markup, as an old substitute form let in.
    Player.objects.filter(game=game, name="Cy").update(name="Cy\r\nBcc: x@example.org <b>")
    services.resolve_now(game)
    assert sorted(addressed(smtp)) == sorted([seat.email for seat in seats] * 2)
    shown = {message["To"].addresses[0].display_name for message in smtp.messages}
    assert {"Anna [3B]", "Team: Red", "a@b", "Ann\\", 'Zoë "Z" O\'Neil', "Bo;Lo"} <= shown
    assert all("x@example.org" not in str(message["To"]) or "Cy" in str(message["To"]) for message in smtp.messages)
    assert not any(message["Bcc"] for message in smtp.messages)
    assert set(Dispatch.objects.values_list("status", flat=True)) == {Status.SENT}


def test_an_address_the_server_refuses_fails_alone_and_is_retried_later(organiser, smtp) -> None:  # noqa: F811
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    seats[3] = services.Seating(NAMES[3], "refused@elsewhere.test")  # the server relays nothing there
    game = start(organiser, seats)
    services.resolve_now(game)
    assert len(smtp.messages) == 12  # everybody else's welcome and results
    failed = Dispatch.objects.exclude(status=Status.SENT)
    assert {row.status for row in failed} == {Status.RETRYING}
    assert all("550" in row.last_error and row.next_attempt_at > timezone.now() for row in failed)
    assert outbound.send_pending() == 0  # not due yet: no new attempt
    assert len(smtp.messages) == 12
    Dispatch.objects.filter(status=Status.RETRYING).update(next_attempt_at=timezone.now(), attempts=6)
    outbound.send_pending()
    assert set(Dispatch.objects.filter(player__email="refused@elsewhere.test").values_list("status", flat=True)) == {
        Status.FAILED
    }


def test_an_address_the_backend_cannot_write_fails_alone(organiser, smtp) -> None:  # noqa: F811
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = services.create_game(organiser, name="Bad address", seats=seats, options={"wolves": 2})
    Player.objects.filter(game=game, name=NAMES[0]).update(email="no such address")
    services.start_game(game)
    assert len(smtp.messages) == 6
    bad = Dispatch.objects.get(player__name=NAMES[0])
    assert bad.status in (Status.FAILED, Status.RETRYING) and bad.last_error


def test_each_mail_has_a_message_id_made_from_its_key(organiser, smtp) -> None:  # noqa: F811
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    start(organiser, seats, name="Tom & Jerry <3")
    ids = {message["Message-ID"] for message in smtp.messages}
    assert ids == {outbound.message_id_for(key) for key in Dispatch.objects.values_list("key", flat=True)}
    assert all(message["Subject"].startswith("[Tom & Jerry <3]") for message in smtp.messages)


def test_the_sweep_costs_the_same_whatever_was_sent_before(organiser, smtp) -> None:  # noqa: F811
    def sweep_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert outbound.send_pending() == 0
        return len(queries)

    empty = sweep_queries()
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    for number in range(3):
        game = start(organiser, seats, name=f"Many {number}")
        services.resolve_now(game)
    assert Dispatch.objects.filter(status=Status.SENT).count() == 42
    assert sweep_queries() == empty == 2


def test_a_mail_left_sending_by_a_dead_worker_is_never_resent_by_the_sweep(organiser, smtp, settings) -> None:  # noqa: F811
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = start(organiser, seats)
    row = Dispatch.objects.first()
    # As a worker killed after the claim: `sending`, claimed long ago.
    Dispatch.objects.filter(pk=row.pk).update(status=Status.SENDING, claimed_at=timezone.now() - timedelta(hours=1))
    before = len(smtp.messages)
    outbound.send_pending()
    row.refresh_from_db()
    assert row.status == Status.UNCERTAIN and len(smtp.messages) == before
    outbound.send_pending()
    assert len(smtp.messages) == before
    # The organiser sends it again: the same message, the same Message-ID.
    services.send_mail_again(game, row.pk)
    assert len(smtp.messages) == before + 1
    assert smtp.messages[-1]["Message-ID"] == row.message_id
    row.refresh_from_db()
    assert row.status == Status.SENT
    with pytest.raises(services.ServiceError):
        services.send_mail_again(game, row.pk)


def test_mails_a_dead_sender_only_took_are_sent_once_by_the_sweep(organiser, smtp) -> None:  # noqa: F811
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    start(organiser, seats)
    before = len(smtp.messages)
    rows = list(Dispatch.objects.order_by("pk")[:3])
    # As a sender killed after taking its batch, before it handed anything over.
    Dispatch.objects.filter(pk__in=[row.pk for row in rows]).update(
        status=Status.CLAIMED, claimed_by="dead", claimed_at=timezone.now() - timedelta(hours=1), sent_at=None
    )
    outbound.send_pending()
    assert len(smtp.messages) == before + 3
    assert set(Dispatch.objects.values_list("status", flat=True)) == {Status.SENT}
    outbound.send_pending()
    assert len(smtp.messages) == before + 3


def test_a_batch_is_taken_in_one_statement_and_each_mail_costs_one(organiser, smtp) -> None:  # noqa: F811
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = start(organiser, seats)
    Dispatch.objects.update(status=Status.PENDING, next_attempt_at=timezone.now())
    due = list(Dispatch.objects.filter(player__game=game).values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as queries:
        assert outbound.deliver(due) == len(due)
    # The claim, the read of the rows taken, one statement per mail, the last one's record.
    assert len(queries) == 2 + len(due) + 1
    # A second sender given the same rows finds nothing to send.
    with CaptureQueriesContext(connection) as queries:
        assert outbound.deliver(due) == 0
    assert len(queries) == 1


def test_the_worker_that_resolves_a_phase_hands_its_mails_to_smtp_itself(organiser, smtp, settings, monkeypatch):  # noqa: F811
    from tasks import phases
    from werewolf.celery import app
    from werewolf.games.models import Phase

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = start(organiser, seats)
    before = len(smtp.messages)
    settings.WEREWOLF_INLINE_TASKS = False  # as a worker: what a commit enqueues goes to the broker
    enqueued: list[str] = []
    monkeypatch.setattr(app, "send_task", lambda name, *args, **kwargs: enqueued.append(name))
    phase = game.current_phase()
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert phases.resolve_due_phase.run(phase.pk)
    # Not queued behind a storm's other phases: sent by this worker, right after the commit.
    assert "tasks.mail.deliver" not in enqueued
    assert len(smtp.messages) == before + len(seats)
    assert Dispatch.objects.filter(phase=phase, status=Status.SENT).count() == len(seats)
    # Elsewhere (a card handed in on the web that ends the step) the mails are a task's.
    services.resolve_now(game)
    assert "tasks.mail.deliver" in enqueued


def test_rows_a_dead_sender_only_took_are_due_again_within_minutes_and_never_sent_twice(organiser, smtp) -> None:  # noqa: F811
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    start(organiser, seats)
    before = len(smtp.messages)
    rows = [row.pk for row in Dispatch.objects.order_by("pk")[:3]]
    taken = timezone.now() - outbound.CLAIM_STALE - timedelta(seconds=1)
    Dispatch.objects.filter(pk__in=rows).update(status=Status.CLAIMED, claimed_by="slow", claimed_at=taken)
    outbound.send_pending()
    assert len(smtp.messages) == before + 3
    # The slow sender wakes up: its rows are not its own any more, so it sends nothing.
    assert outbound._advance("slow", None, Dispatch.objects.get(pk=rows[0])) is False
    assert len(smtp.messages) == before + 3
    assert set(Dispatch.objects.filter(pk__in=rows).values_list("status", flat=True)) == {Status.SENT}


def test_each_mail_has_boundaries_of_its_own_and_reads_back_whole(organiser, smtp) -> None:  # noqa: F811
    import re

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = start(organiser, seats)
    services.resolve_now(game)
    boundaries = []
    for message in smtp.messages:
        for part in message.walk():
            if part.is_multipart():
                boundary = part.get_boundary()
                assert re.fullmatch(r"=_[0-9a-f]{28}", boundary)
                boundaries.append(boundary)
        kinds = [part.get_content_type() for part in message.walk() if not part.is_multipart()]
        assert kinds == ["text/plain", "text/html", "text/calendar"]
        assert message.get_body(("plain",)).get_content().strip()
    assert len(set(boundaries)) == len(boundaries) == 2 * len(smtp.messages)
    # The results ask for the next card with the seat's link, a link in the HTML, escaped once.
    results = smtp.messages[-1]
    html = results.get_body(("html",)).get_content()
    link = next(line.split()[-1] for line in results.get_body(("plain",)).get_content().splitlines() if "/p/" in line)
    assert f'<a href="{link}">{link}</a>' in html and "&amp;amp;" not in html and "<br>" in html


def test_with_the_broker_down_the_sweep_resolves_and_mails_itself(organiser, smtp, settings, monkeypatch) -> None:  # noqa: F811
    from tasks import phases
    from werewolf.celery import app
    from werewolf.games.models import Phase

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = start(organiser, seats)
    before = len(smtp.messages)
    settings.WEREWOLF_INLINE_TASKS = False

    def refuse(*args, **kwargs):
        raise ConnectionError("the broker is down")

    monkeypatch.setattr(app, "send_task", refuse)
    Phase.objects.filter(game=game).update(deadline=timezone.now() - timedelta(seconds=1))
    assert phases.sweep_due_phases.run() == 1
    assert len(smtp.messages) == before + len(seats)  # not left for the mail sweep
    assert not Dispatch.objects.exclude(status=Status.SENT).exists()


def test_a_database_lost_mid_batch_leaves_one_mail_in_doubt_and_the_rest_due(organiser, smtp, monkeypatch) -> None:  # noqa: F811
    from django.db.utils import DatabaseError

    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    start(organiser, seats)
    Dispatch.objects.update(status=Status.PENDING, next_attempt_at=timezone.now())
    before = len(smtp.messages)
    real, calls = outbound._advance, []

    def advance(*args):
        calls.append(args)
        if len(calls) == 3:  # the third mark: the database stays away past every retry
            raise DatabaseError("the outbox could not be written")
        return real(*args)

    monkeypatch.setattr(outbound, "_advance", advance)
    with pytest.raises(DatabaseError):
        outbound.deliver(list(Dispatch.objects.order_by("pk").values_list("pk", flat=True)))
    assert len(calls) == 3  # not tried again on the way out
    statuses = list(Dispatch.objects.order_by("pk").values_list("status", flat=True))
    assert statuses[:2] == [Status.SENT, Status.SENDING]
    assert set(statuses[2:]) == {Status.PENDING}  # put back at once, for any sender
    assert len(smtp.messages) == before + 2
    monkeypatch.setattr(outbound, "_advance", real)
    outbound.send_pending()
    # The one in doubt (the server has it: its "sent" was never written) is not resent.
    assert len(smtp.messages) == before + len(statuses)
    assert Dispatch.objects.filter(status=Status.SENDING).count() == 1


def test_a_resolution_writes_its_mails_taken_and_sends_them_at_its_commit(organiser, smtp) -> None:  # noqa: F811
    """The resolver sends its phase's mails itself: they are written already taken by it,
    in the resolution's transaction, and not read back to be taken; the resolution reads
    the players once."""
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:12]]
    game = start(organiser, seats)
    smtp.messages.clear()
    with CaptureQueriesContext(connection) as queries:
        services.resolve_now(game)
    assert len(smtp.messages) == 12
    assert set(Dispatch.objects.filter(phase__game=game).values_list("status", flat=True)) == {Status.SENT}
    sql = [query["sql"] for query in queries.captured_queries]
    assert not [statement for statement in sql if "SET status = 'claimed'" in statement]
    assert len([statement for statement in sql if 'FROM "games_player"' in statement]) == 1
    assert not [statement for statement in sql if 'FROM "games_dispatch"' in statement]
    # One statement a mail (its "sending", with the one before's "sent"), and one for the last "sent".
    assert len([statement for statement in sql if "'sending'" in statement]) == 13


def test_a_resolver_that_dies_after_its_commit_leaves_its_mails_to_the_sweep(organiser, smtp, monkeypatch) -> None:  # noqa: F811
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    game = start(organiser, seats)
    smtp.messages.clear()
    monkeypatch.setattr(outbound, "_send_fresh", lambda *args: 0)  # the worker died at its commit
    services.resolve_now(game)
    rows = Dispatch.objects.filter(phase__game=game)
    assert set(rows.values_list("status", flat=True)) == {Status.CLAIMED}
    assert outbound.send_pending() == 0  # still the dead worker's, for CLAIM_STALE
    later = timezone.now() + outbound.CLAIM_STALE + timedelta(seconds=1)
    assert outbound.send_pending(later) == 7
    assert len(smtp.messages) == 7
    assert outbound.send_pending(later) == 0
