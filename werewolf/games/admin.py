from django.contrib import admin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from .models import Dispatch, Game, InboundMessage, Player, SeatHolding
from .outbox import outbox
from .queue import after_commit

# django-stubs makes the admin's classes generic in their model, but Django's are not
# subscriptable at run time (without django-stubs-ext's monkeypatch): their model stays
# unnamed, hence `type-arg` below.


class PlayerInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Player
    fields = ("seat", "name", "email", "is_bot")
    readonly_fields = ("seat",)
    extra = 0


class SeatHoldingInline(admin.TabularInline):  # type: ignore[type-arg]
    """Who held each seat, from when and why (games.holders): written where the seats
    changed hands, never edited."""

    model = SeatHolding
    fields = ("seat", "name", "email", "reason", "phase", "since")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "ruleset", "status", "organiser", "created_at")
    list_filter = ("status", "ruleset")
    readonly_fields = ("seed", "public_key", "status", "started_at", "finished_at")
    exclude = ("state",)
    inlines = [PlayerInline, SeatHoldingInline]


@admin.register(InboundMessage)
class InboundMessageAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Every mail that reached the orders address, kept as it came."""

    list_display = ("received_at", "sender", "author", "subject", "status", "code", "away", "game", "player")
    list_filter = ("status", "code")
    search_fields = ("sender", "subject", "message_id", "card")
    exclude = ("raw",)
    readonly_fields = [field.name for field in InboundMessage._meta.fields if field.name != "raw"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Dispatch)
class DispatchAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """The outbox: every mail the server wrote, and what became of it. The status filter
    counts the backlog (waiting, retrying, failed, in doubt); "Send again" retries a mail
    that failed or may not have gone out, with the same Message-ID."""

    list_display = ("created_at", "player", "kind", "status", "attempts", "next_attempt_at", "short_error")
    list_filter = ("status", "kind")
    show_facets = admin.ShowFacets.ALWAYS
    search_fields = ("recipient", "subject", "message_id", "key")
    exclude = ("body_html",)
    readonly_fields = [field.name for field in Dispatch._meta.fields if field.name != "body_html"]
    actions = ["send_again"]

    @admin.display(description=_("why"))
    def short_error(self, dispatch: Dispatch) -> str:
        return dispatch.last_error[:120]

    @admin.action(description=_("Send again (failed or in doubt; the same Message-ID)"))
    def send_again(self, request: HttpRequest, queryset: QuerySet[Dispatch]) -> None:
        with transaction.atomic():
            again = [dispatch.pk for dispatch in queryset if outbox().send_again(dispatch)]
            if again:
                after_commit("tasks.mail.deliver", again)
        message = ngettext("%(count)d mail will be sent again.", "%(count)d mails will be sent again.", len(again))
        self.message_user(request, message % {"count": len(again)})

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
