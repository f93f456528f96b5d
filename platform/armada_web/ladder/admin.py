"""Staff: ratings (filter benched ones) and the Mothership Down league table, read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from armada_web.ladder.models import LeagueEntry, Rating
from armada_web.web.admin import ModelAdmin


class ComputedAdmin(ModelAdmin):
    """Rows the ladder computes from the recorded matches (a rating, a league line): shown, never
    typed in, edited or deleted on their own pages; staff void a match instead, which recomputes
    them. They still go with a bot or a version deleted on its page (the admin asks this permission
    of every row a delete takes with it)."""

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        own = f"{self.opts.app_label}_{self.opts.model_name}_"
        if (getattr(request.resolver_match, "url_name", None) or "").startswith(own):
            return False
        return super().has_delete_permission(request, obj)


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
