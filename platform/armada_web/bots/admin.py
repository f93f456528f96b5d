"""Staff: bots (disable, enable, retire) and versions (re-run a validation), with filters and search."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpResponse
from django.template.response import TemplateResponse

from armada_web.bots import services
from armada_web.bots.models import Bot, BotVersion
from armada_web.web.admin import ModelAdmin
from armada_web.web.errors import Invalid


class VersionInline(admin.TabularInline):
    model = BotVersion
    fields = ("number", "status", "detail", "attempts", "created", "finished")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


#: The most bots the Disable page lists by name (it says how many more).
SHOWN = 50


@admin.register(Bot)
class BotAdmin(ModelAdmin):
    list_display = ["name", "game", "owner", "active_version", "pinned", "retired", "disabled", "created"]
    list_filter = ["game", "disabled", ("retired", admin.EmptyFieldListFilter), "created"]
    search_fields = ["name", "owner__username", "description"]
    # Staff change a bot's description here, and whether it plays through the actions below (their
    # services); its name is its for good (docs/site.md), and its team and active version move only
    # through the services that check them (an organiser's trial set another bot's version active).
    readonly_fields = ["name", "game", "owner", "team", "active_version", "pinned", "retired", "disabled",
                       "disabled_reason", "created"]
    inlines = [VersionInline]
    actions = ["disable", "enable", "retire"]

    # (permissions: a staff account that may only view bots cannot stop them playing: a review)
    @admin.action(description="Disable: stop the selected bots from playing", permissions=["change"])
    def disable(self, request: Any, queryset: QuerySet[Bot]) -> HttpResponse | None:
        """First a page asking for the reason the bots' pages will show (an organiser's trial: it
        asked nothing and the pages said "disabled by staff (admin)"), then the bots disabled."""
        error = ""
        most = services.staff_reason_max(staff=request.user.username)  # (the username is added)
        if request.POST.get("apply"):
            try:
                reason = services.staff_reason(given=request.POST.get("reason", ""), staff=request.user.username)
                for bot in queryset:
                    services.set_disabled(bot=bot, disabled=True, reason=reason)
            except Invalid as exc:
                error = str(exc)
            else:
                self.message_user(request, f"{queryset.count()} bot(s) disabled.", messages.SUCCESS)
                return None
        # The page posts back what the changelist sent (its page's ids, or "all N" as select_across with its
        # filters in the address), not every id: past 1000 fields Django refuses the request (a review).
        context = {**self.admin_site.each_context(request), "title": "Disable bots",
                   "bots": list(queryset.select_related("owner")[:SHOWN]), "count": queryset.count(),
                   "opts": self.model._meta,
                   "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                   "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
                   "select_across": request.POST.get("select_across", "0"),
                   "reason": request.POST.get("reason", ""), "error": error, "reason_max": most}
        return TemplateResponse(request, "admin/bots/disable.html", context)

    @admin.action(description="Enable: let the selected bots play again", permissions=["change"])
    def enable(self, request: Any, queryset: QuerySet[Bot]) -> None:
        for bot in queryset:
            services.set_disabled(bot=bot, disabled=False)
        self.message_user(request, f"{queryset.count()} bot(s) enabled.", messages.SUCCESS)

    @admin.action(description="Retire the selected bots", permissions=["change"])
    def retire(self, request: Any, queryset: QuerySet[Bot]) -> None:
        retired = sum(services.retire(bot=bot) for bot in queryset)
        self.message_user(request, f"{retired} bot(s) retired ({queryset.count() - retired} were retired already).",
                          messages.SUCCESS)


@admin.register(BotVersion)
class BotVersionAdmin(ModelAdmin):
    list_display = ["__str__", "bot", "number", "status", "attempts", "created", "finished"]
    list_filter = ["status", "bot__game", "created"]
    search_fields = ["bot__name", "bot__owner__username", "sha256", "detail"]
    # Its status moves only through validation (the action below): an edit would skip the bot's active
    # version and the apps above (a review).
    readonly_fields = ["bot", "number", "uploaded_by", "status", "detail", "archive_file", "sha256", "size", "files",
                       "orders", "race_name", "engine_version", "attempts", "created", "queued", "started", "finished",
                       "log", "replay_file"]
    actions = ["rerun_validation"]
    exclude = ["archive", "replay"]

    @admin.display(description="archive (private storage)")
    def archive_file(self, version: BotVersion) -> str:
        return version.archive.name or "(deleted)"

    @admin.display(description="validation replay (private storage)")
    def replay_file(self, version: BotVersion) -> str:
        return version.replay.name or "(none)"

    @admin.action(description="Re-run the validation of the selected versions")
    def rerun_validation(self, request: Any, queryset: QuerySet[BotVersion]) -> None:
        queued = sum(services.revalidate(version=version) for version in queryset)
        self.message_user(request, f"{queued} version(s) queued for validation "
                                   f"({queryset.count() - queued} being validated now were left alone).",
                          messages.SUCCESS)
