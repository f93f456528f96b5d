"""Staff: ratings (filter benched ones) and the Mothership Down league table, read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from armada_web.ladder.models import LeagueEntry, Rating
from armada_web.web.admin import ModelAdmin


class ComputedAdmin(ModelAdmin):
    """Rows the ladder computes from the recorded matches (a rating, a league line): shown, never
    typed in, edited or deleted here; staff void a match instead, which recomputes them."""

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ComputedAdmin):
    list_display = ["version", "mu", "sigma", "games", "wins", "draws", "losses", "benched"]
    list_filter = ["benched"]
    search_fields = ["version__bot__name", "version__bot__owner__username"]
    raw_id_fields = ["version"]


@admin.register(LeagueEntry)
class LeagueEntryAdmin(ComputedAdmin):
    list_display = ["position", "version", "points", "wins_destruction", "wins_damage", "draws", "losses"]
    search_fields = ["version__bot__name"]
    raw_id_fields = ["version"]
