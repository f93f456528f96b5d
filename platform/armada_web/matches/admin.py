"""Staff: matches (filters, search, the seats inline) and the action that voids a match."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet

from armada_web.matches import services
from armada_web.matches.models import Match, Participant
from armada_web.web.paging import CappedPaginator


class ParticipantInline(admin.TabularInline):
    model = Participant
    fields = ("seat", "name", "version", "result", "status", "detail", "mu_before", "mu_after")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["__str__", "game", "kind", "status", "attempts", "worker", "created", "finished"]
    list_filter = ["game", "kind", "status", "created"]
    search_fields = ["participants__name", "reason", "worker"]
    exclude = ["replay"]
    readonly_fields = ["game", "seed", "kind", "status", "attempts", "worker", "requested_by", "created", "queued",
                       "started", "finished", "turns", "outcome", "engine_version", "reason"]
    inlines = [ParticipantInline]
    actions = ["void"]
    # A season has a million matches: newest first by the primary key, counted only so far.
    ordering = ["-id"]
    paginator = CappedPaginator
    show_full_result_count = False

    @admin.action(description="Void the selected matches (no result; ratings recomputed without them)")
    def void(self, request: Any, queryset: QuerySet[Match]) -> None:
        done = sum(services.void_by_staff(match=match, reason=f"by {request.user.username}") for match in queryset)
        self.message_user(request, f"{done} match(es) voided.", messages.SUCCESS)
