from django.contrib import admin

from .models import Game, InboundMessage, Player


class PlayerInline(admin.TabularInline):
    model = Player
    fields = ("seat", "name", "email", "is_bot")
    readonly_fields = ("seat",)
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("name", "ruleset", "status", "organiser", "created_at")
    list_filter = ("status", "ruleset")
    readonly_fields = ("seed", "public_key", "status", "started_at", "finished_at")
    exclude = ("state",)
    inlines = [PlayerInline]


@admin.register(InboundMessage)
class InboundMessageAdmin(admin.ModelAdmin):
    """Every mail that reached the orders address, kept as it came."""

    list_display = ("received_at", "sender", "subject", "status", "code", "game", "player")
    list_filter = ("status", "code")
    search_fields = ("sender", "subject", "message_id", "card")
    exclude = ("raw",)
    readonly_fields = [field.name for field in InboundMessage._meta.fields if field.name != "raw"]

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False
