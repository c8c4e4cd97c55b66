from django.contrib import admin

from .models import Invitation, Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["user", "name", "language", "timezone"]
    search_fields = ["user__username", "user__email", "name"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["email", "invited_by", "game", "created_at", "accepted_at"]
    search_fields = ["email", "invited_by__username"]
    exclude = ["key_hash"]
    readonly_fields = ["accepted_at", "accepted_by"]
