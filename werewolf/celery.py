"""The Celery app. Tasks live in the top-level `tasks` package and only call services."""

from __future__ import annotations

import gc
import logging
import os

from celery import Celery
from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_shutdown,
    worker_shutdown,
)

from werewolf import broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "werewolf.settings")

broker.install()

EX_CONFIG = 78  # sysexits: a configuration error (a service manager need not retry at once)

app = Celery("werewolf")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.imports = ("tasks.phases", "tasks.mail", "tasks.printing", "tasks.housekeeping", "tasks.standbys")


@app.on_after_finalize.connect
def _schedule_sweeper(sender: Celery, **kwargs: object) -> None:
    from django.conf import settings

    # One task for the deadlines, reminders, vote counts, talk digests and standbys
    # (tasks.phases.sweep): one message a sweep rather than five.
    sender.add_periodic_task(settings.WEREWOLF_SWEEP_SECONDS, sender.signature("tasks.phases.sweep"), name="sweep")
    sender.add_periodic_task(
        settings.WEREWOLF_MAIL_SWEEP_SECONDS, sender.signature("tasks.mail.send_pending_mail"), name="send pending mail"
    )
    sender.add_periodic_task(
        600, sender.signature("tasks.housekeeping.drop_expired_signups"), name="drop expired sign-ups"
    )
    sender.add_periodic_task(
        3600, sender.signature("tasks.housekeeping.forget_old_addresses"), name="remove old games' addresses"
    )
    if settings.WEREWOLF_IMAP_HOST:
        sender.add_periodic_task(
            settings.WEREWOLF_IMAP_POLL_SECONDS, sender.signature("tasks.mail.fetch_mail"), name="fetch mail"
        )


@after_setup_logger.connect
@after_setup_task_logger.connect
def _json_lines(logger: logging.Logger, **kwargs: object) -> None:
    """With WEREWOLF_LOG_FORMAT=json a worker writes the lines the web server writes: a
    worker's logging is Celery's own (its `--loglevel`, its handlers in place of the root
    logger's), so each of Celery's handlers is given the project's JSON formatter, and the
    resolutions and mails the worker logs reach a log collector with their ids."""
    from django.conf import settings

    if settings.WEREWOLF_LOG_JSON:
        from werewolf.logs import JSONFormatter

        for handler in logger.handlers:
            handler.setFormatter(JSONFormatter())


@worker_init.connect
def _refuse_without_the_sites_address(**kwargs: object) -> None:
    """A worker whose settings give only the built-in site address, on a site that set
    another, would mail links that lead nowhere: it says why and does not start
    (werewolf/site/address.py)."""
    from werewolf.site import address

    refused = address.refusal()
    if refused:
        logging.getLogger("werewolf.site").critical("The worker does not start. %s", refused)
        raise SystemExit(EX_CONFIG)


@worker_init.connect
def _warm(**kwargs: object) -> None:
    """Compile the mail templates and load the catalogs before the first task (and
    before a prefork pool forks, so that every child starts with them); then set all that
    is loaded out of the garbage collector's way (`gc.freeze`, as the web server does:
    werewolf/wsgi.py), so that a full collection in a storm walks only what tasks made."""
    from werewolf.mail import outbound

    outbound.warm()
    gc.freeze()


@task_prerun.connect
@task_postrun.connect
def _tidy_connections(task: object = None, **kwargs: object) -> None:
    """A task is to a worker what a request is to the web: its database connection is
    kept for CONN_MAX_AGE and checked before the next task uses it (Django's
    `close_old_connections`, as at each request's start and end), not closed after every
    task as Celery's Django fixup does unless CELERY_DB_REUSE_MAX says otherwise. Opening
    one cost a resolution more than its own statements, and a server process for each.
    (A task run eagerly, in a test's transaction or a request's, leaves them alone.)"""
    if getattr(getattr(task, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


@worker_shutdown.connect
@worker_process_shutdown.connect
def _say_goodbye(**kwargs: object) -> None:
    """Close the mail server connection kept between batches (werewolf/mail/kept.py)."""
    from werewolf.mail import kept

    kept.close()
