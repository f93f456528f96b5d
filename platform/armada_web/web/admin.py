"""The admin's edits write only what the form changed (every app's ModelAdmin derives from this)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin


class EditedFieldsOnly:
    """A ModelAdmin mixin: saving a changed row writes only the fields its form changed.

    Django's admin saves the whole row it read when the page was sent back, so a staff edit (a
    season's name, a bot's description) would write back, as they were then, the fields that beat,
    a worker or a service changed meanwhile (a season's state, a version's status, a rating), and
    so undo a close, a finish or a rating update. Adding a row saves it whole, as before.
    """

    def save_model(self, request: Any, obj: Any, form: Any, change: bool) -> None:
        if not change:
            super().save_model(request, obj, form, change)  # type: ignore[misc]
            return
        concrete = {f.name for f in obj._meta.concrete_fields if not f.primary_key}
        edited = [name for name in form.changed_data if name in concrete]
        if edited:  # (a field kept up to date on every save, `auto_now`, is written with them)
            touched = [f.name for f in obj._meta.concrete_fields if getattr(f, "auto_now", False)]
            obj.save(update_fields=[*edited, *(name for name in touched if name not in edited)])


class ModelAdmin(EditedFieldsOnly, admin.ModelAdmin):  # type: ignore[type-arg]
    """`admin.ModelAdmin` whose edits write only the changed fields."""


class DeletedOneByOne:
    """A ModelAdmin mixin: a row is deleted only when `deletable(obj)` says so (its service's rule:
    a season that has not closed, an event still open), one at a time, from its own page; the bulk
    delete, which would not ask each row, is not offered."""

    def deletable(self, obj: Any) -> bool:
        return True

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        if obj is not None and not self.deletable(obj):
            return False
        return super().has_delete_permission(request, obj)  # type: ignore[misc,no-any-return]

    def get_actions(self, request: Any) -> dict[str, Any]:
        actions = super().get_actions(request)  # type: ignore[misc]
        actions.pop("delete_selected", None)
        return actions  # type: ignore[no-any-return]
