"""Staff: seasons (create, edit the times and, until the close, who may enter; actions open, close,
finals, finish through the services), their entries and final standings (read-only: computed,
never typed in)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet

from armada_web.games import spec
from armada_web.seasons import services
from armada_web.seasons.models import BEFORE_CLOSE, Entry, Season, SeasonState, Standing
from armada_web.web.admin import DeletedOneByOne, ModelAdmin
from armada_web.web.errors import DomainError


class StandingInline(admin.TabularInline):
    model = Standing
    fields = ("place", "bot_name", "owner", "team_name", "members", "version_number", "score", "games", "stage")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False


def _each(action: Callable[[Season], object], done: str) -> Callable[..., None]:
    def run(modeladmin: admin.ModelAdmin, request: Any, queryset: QuerySet[Season]) -> None:
        count = 0
        for season in queryset:
            try:
                action(season)
                count += 1
            except DomainError as exc:
                modeladmin.message_user(request, str(exc), messages.ERROR)
        if count:
            modeladmin.message_user(request, f"{count} season(s) {done}.", messages.SUCCESS)
    return run


def _finals_said(season: Season) -> str:
    """What "Begin the finals" did to `season` (as start_finals left it)."""
    count = season.entries.count()
    entries = f"{count} entr{'y' if count == 1 else 'ies'}"
    if season.state != SeasonState.FINISHED:
        return (f"Season {season.slug} is in its finals: {entries}, {season.matches_total} "
                f"match{'es' if season.matches_total != 1 else ''}.")
    if not spec(season.game).rated:
        return f"Season {season.slug} finished at once: the league of its {entries} is its result (nothing to play)."
    return (f"Season {season.slug} finished at once: its {entries} {'is' if count == 1 else 'are'} too few for "
            "finals (at least 2); its standings are stored.")


class SeasonForm(forms.ModelForm):
    """The season's fields checked by the service's own rules (seasons.services.check_season and,
    while the entry rule may change, check_entry_rule)."""

    class Meta:
        model = Season
        fields = ["slug", "name", "game", "opens", "closes", "ends", "entry_rule", "invited_users",
                  "team_max_members", "one_team_per_person"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "entry_rule" in self.fields:
            self.fields["entry_rule"].required = False  # left out: everyone (the service's default)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:  # a field already refused (a date that is no date, an unknown game): its own
            return data  # error says it; the rules across fields would judge values nobody typed
        slug, game = data.get("slug", self.instance.slug), data.get("game", self.instance.game)
        try:
            services.check_season(slug=slug, game=game, name=data.get("name"), opens=data.get("opens"),
                                  closes=data.get("closes"), ends=data.get("ends"), new=self.instance.pk is None,
                                  state=self.instance.state if self.instance.pk is not None else None,
                                  was=self.instance.name if self.instance.pk is not None else None,
                                  dates_were=((self.instance.opens, self.instance.closes, self.instance.ends)
                                              if self.instance.pk is not None else None))
            if "entry_rule" in self.fields:
                rule, _ = services.check_entry_rule(entry_rule=data.get("entry_rule"),
                                                    invited=data.get("invited_users") or ())
                data["entry_rule"] = rule.value
            if "team_max_members" in self.fields:
                services.check_team_rules(team_max_members=data.get("team_max_members"),
                                          one_team_per_person=bool(data.get("one_team_per_person")))
        except DomainError as exc:
            raise forms.ValidationError(str(exc)) from None
        return data


@admin.register(Season)
class SeasonAdmin(DeletedOneByOne, ModelAdmin):
    form = SeasonForm
    list_display = ["slug", "name", "game", "state", "entry_rule", "opens", "closes", "ends", "stage",
                    "matches_total"]
    list_filter = ["game", "state", "entry_rule"]
    autocomplete_fields = ["invited_users"]
    search_fields = ["slug", "name"]
    readonly_fields = ["state", "stages", "games", "cuts", "keep_min", "start", "stage", "round", "matches_total",
                       "finals_workers", "closed_at", "finals_at", "finished_at", "created"]
    inlines = [StandingInline]
    actions = ["open_now", "close_now", "finals_now", "finish_now"]

    def get_readonly_fields(self, request: Any, obj: Season | None = None) -> list[str]:
        fixed = ["slug", "game"] if obj is not None else []  # a season keeps its slug and game
        if obj is not None and obj.state not in BEFORE_CLOSE:
            fixed += ["entry_rule", "invited_users", "team_max_members", "one_team_per_person"]  # frozen entries
        return [*fixed, *self.readonly_fields]

    def deletable(self, obj: Season) -> bool:
        """As services.may_delete says (a closed season stays)."""
        return services.may_delete(season=obj)

    def save_model(self, request: Any, obj: Season, form: Any, change: bool) -> None:
        rule, invited = form.cleaned_data.get("entry_rule"), form.cleaned_data.get("invited_users") or ()
        if change:  # times and name edited (the form checked them); the state only moves by the actions
            super().save_model(request, obj, form, change)
            if {"entry_rule", "invited_users"} & set(form.changed_data):  # (else a rename of a season
                services.set_entry_rule(season=obj, entry_rule=rule, invited=invited)  # closed meanwhile fails)
            if {"team_max_members", "one_team_per_person"} & set(form.changed_data):
                services.set_team_rules(season=obj, team_max_members=obj.team_max_members,
                                        one_team_per_person=obj.one_team_per_person)
            return
        created = services.create_season(slug=obj.slug, game=obj.game, name=obj.name, opens=obj.opens,
                                         closes=obj.closes, ends=obj.ends, entry_rule=rule, invited=invited,
                                         team_max_members=obj.team_max_members,
                                         one_team_per_person=obj.one_team_per_person)
        obj.pk, obj.state = created.pk, created.state

    def save_related(self, request: Any, form: Any, formsets: Any, change: bool) -> None:
        """The invited accounts were set by the service (save_model); only the inlines are saved here."""
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    @admin.action(description="Open the selected upcoming seasons now")
    def open_now(self, request: Any, queryset: QuerySet[Season]) -> None:
        _each(lambda s: services.open_season(season=s), "opened")(self, request, queryset)

    @admin.action(description="Close the selected open seasons now (entries frozen)")
    def close_now(self, request: Any, queryset: QuerySet[Season]) -> None:
        _each(lambda s: services.close_season(season=s), "closed")(self, request, queryset)

    @admin.action(description="Begin the finals of the selected closed seasons")
    def finals_now(self, request: Any, queryset: QuerySet[Season]) -> None:
        """Each season's finals on the settings' plan, saying per season what happened: in its finals,
        or finished at once (a league game's result, fewer than two entries). Finals that would
        run past the season's end are refused as `season finals` refuses them (no --past-end
        here: this action has no plan to choose nor a confirmation; the refusal names the command)."""
        for season in queryset:
            try:
                started = services.start_finals(season=season)
            except DomainError as exc:
                self.message_user(request, str(exc), messages.ERROR)
                continue
            self.message_user(request, _finals_said(started), messages.SUCCESS)

    @admin.action(description="Finish the selected seasons now (standings as they are, stored for good)")
    def finish_now(self, request: Any, queryset: QuerySet[Season]) -> None:
        _each(lambda s: services.finish_season(season=s), "finished")(self, request, queryset)


@admin.register(Entry)
class EntryAdmin(ModelAdmin):
    list_display = ["season", "seed", "bot_name", "version_number", "stage", "mu", "sigma", "games", "place"]
    list_filter = ["season"]
    search_fields = ["bot_name"]
    readonly_fields = [f.name for f in Entry._meta.fields]

    def has_add_permission(self, request: Any) -> bool:
        return False
