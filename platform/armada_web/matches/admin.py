"""Staff: matches (filters, search, the seats inline) and the action that voids a match."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet

from armada_web.matches import services
from armada_web.matches.models import Match, Participant
from armada_web.web.admin import ModelAdmin
from armada_web.web.paging import CappedPaginator


class HostFilter(admin.SimpleListFilter):
    """The worker host that played a match; the choices are the hosts of the latest RECENT matches
    (a DISTINCT over every match would read a season's million rows)."""

    title = "worker host"
    parameter_name = "host"
    RECENT = 5000

    def lookups(self, request: Any, model_admin: Any) -> list[tuple[str, str]]:
        hosts = set(Match.objects.order_by("-id").values_list("host", flat=True)[:self.RECENT])
        if self.value():  # the chosen one stays offered even when no recent match names it
            hosts.add(str(self.value()))
        return [(host, host) for host in sorted(hosts) if host]

    def queryset(self, request: Any, queryset: QuerySet[Match]) -> QuerySet[Match]:
        return queryset.filter(host=self.value()) if self.value() else queryset


class ParticipantInline(admin.TabularInline):
    model = Participant
    fields = ("seat", "name", "version", "result", "status", "detail", "mu_before", "mu_after")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Match)
class MatchAdmin(ModelAdmin):
    list_display = ["__str__", "game", "kind", "status", "attempts", "host", "worker", "created", "finished"]
    list_filter = ["game", "kind", "status", HostFilter, "created"]
    search_fields = ["participants__name", "reason", "worker", "host"]
    exclude = ["replay"]
    readonly_fields = ["game", "seed", "kind", "status", "attempts", "host", "worker", "requested_by", "created",
                       "queued", "started", "finished", "turns", "outcome", "engine_version", "reason"]
    inlines = [ParticipantInline]
    actions = ["void"]
    # A season has a million matches: newest first by the primary key, counted only so far.
    ordering = ["-id"]
    paginator = CappedPaginator
    show_full_result_count = False

    def has_add_permission(self, request: Any) -> bool:
        return False  # matches are made by matchmaking, challenges, events and finals (a form's was a 500)

    def has_change_permission(self, request: Any, obj: Match | None = None) -> bool:
        """Never: a match is what its worker recorded (its replay's hash is the public dataset's; its
        holder and heartbeat are the reaper's); staff void one (the list's action)."""
        return False

    def has_delete_permission(self, request: Any, obj: Match | None = None) -> bool:
        """Never: a deleted match would take its rating changes with it and leave the ratings as they
        were; staff void a match instead (services.void_by_staff), which recomputes them."""
        return False

    @admin.action(description="Void the selected matches (no result; ratings recomputed without them)")
    def void(self, request: Any, queryset: QuerySet[Match]) -> None:
        done = 0
        for match in queryset:  # the public reason names no one; the admin's own log (staff only) does
            if services.void_by_staff(match=match, reason="from the admin site"):
                self.log_change(request, match, "voided")
                done += 1
        self.message_user(request, f"{done} match(es) voided.", messages.SUCCESS)
