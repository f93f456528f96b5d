"""Staff: events and their entries (read-mostly; their rules are the services')."""

from __future__ import annotations

from django.contrib import admin

from armada_web.events.access import may_delete
from armada_web.events.models import Event, EventEntry, EventWithdrawal
from armada_web.web.admin import DeletedOneByOne, ModelAdmin


class EntryInline(admin.TabularInline):
    model = EventEntry
    fields = ("bot_name", "owner", "version", "games", "wins", "draws", "losses", "points", "place")
    readonly_fields = fields
    extra = 0
    can_delete = False


class WithdrawalInline(admin.TabularInline):
    model = EventWithdrawal
    fields = ("bot_name", "owner", "entered", "by", "created")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Event)
class EventAdmin(DeletedOneByOne, ModelAdmin):
    list_display = ["slug", "name", "game", "format", "owner", "state", "public", "created"]
    list_filter = ["game", "format", "state", "public"]
    search_fields = ["slug", "name", "owner__username"]
    # `public` is fixed at creation: the bots' public records leave a private event's games out
    # from the match's making on (matches.tallies), so flipping it later would unbalance them.
    # Its plan (game, format, games, times, entrants) changes through its owner's page, whose service
    # checks each change against its state (an organiser's trial changed a running ladder's format here,
    # which finished it at once): staff rename it, the rest is read-only.
    readonly_fields = ["slug", "owner", "invite", "public", "state", "created", "started", "finished",
                       "games_total", "last_sent", "game", "format", "games_per_pair", "starts", "ends",
                       "max_entrants"]
    inlines = [EntryInline, WithdrawalInline]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False  # events are made by their owners (events.services.create_event)

    def deletable(self, obj: Event) -> bool:
        """As access.may_delete says (only an open event)."""
        return may_delete(event=obj)
