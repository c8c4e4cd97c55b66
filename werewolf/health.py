"""Health and readiness, for a load balancer or a process manager.

`/healthz` answers at once, touching nothing: the process serves requests. `/readyz`
checks what a request needs and what keeps games moving: the database, the broker, phases
left past their deadline (the beat's sweeper should resolve them within a minute) and mail
waiting to be sent; 503 when the database or the broker is down.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

OVERDUE_AFTER = timedelta(minutes=2)
"""A phase this long past its deadline and still open means the beat is not sweeping."""


@require_GET
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok\n", content_type="text/plain")


@require_GET
@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    from werewolf.games.models import DISPATCH_DUE, DISPATCH_FAILED, Dispatch, Phase

    report: dict[str, Any] = {}
    ready = True
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        report["database"] = "ok"
        now = timezone.now()
        report["overdue_phases"] = Phase.objects.filter(
            status=Phase.Status.OPEN, deadline__lt=now - OVERDUE_AFTER
        ).count()
        # (Each count reads its own partial index: the due one, the failed one.)
        report["mail_backlog"] = Dispatch.objects.filter(DISPATCH_DUE).count()
        report["mail_failed"] = Dispatch.objects.filter(DISPATCH_FAILED).count()
    except Exception as failure:  # the report says what is down; it never raises
        report["database"] = f"down: {type(failure).__name__}"
        ready = False
    try:
        from werewolf.celery import app

        with app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=1, timeout=2)
        report["broker"] = "ok"
    except Exception as failure:
        report["broker"] = f"down: {type(failure).__name__}"
        ready = False
    report["ready"] = ready
    return JsonResponse(report, status=200 if ready else 503)
