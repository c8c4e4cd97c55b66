from django.contrib import admin

from .models import Game, Player


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
