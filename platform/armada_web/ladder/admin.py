"""Staff: ratings (filter benched ones) and the Mothership Down league table, read-only."""

from __future__ import annotations

from django.contrib import admin

from armada_web.ladder.models import LeagueEntry, Rating
from armada_web.web.admin import ModelAdmin


@admin.register(Rating)
class RatingAdmin(ModelAdmin):
    list_display = ["version", "mu", "sigma", "games", "wins", "draws", "losses", "benched"]
    list_filter = ["benched"]
    search_fields = ["version__bot__name", "version__bot__owner__username"]
    raw_id_fields = ["version"]


@admin.register(LeagueEntry)
class LeagueEntryAdmin(ModelAdmin):
    list_display = ["position", "version", "points", "wins_destruction", "wins_damage", "draws", "losses"]
    search_fields = ["version__bot__name"]
    raw_id_fields = ["version"]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False  # the table is computed (ladder.league), never typed in
