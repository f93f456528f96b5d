"""Bot forms: a new bot, an upload."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from armada.sizes import human_size
from armada_web.bots.logic.names import NAME_MAX, NAME_RULE
from armada_web.bots.models import Game
from armada_web.bots.services import DESCRIPTION_MAX


class BotForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX, help_text=NAME_RULE)
    game = forms.ChoiceField(choices=Game.choices)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False,
                                  max_length=DESCRIPTION_MAX)
    team = forms.TypedChoiceField(coerce=int, required=False, empty_value=None,
                                  help_text="the team whose members manage it (your personal team: you alone)")

    def __init__(self, *args: Any, teams: list[Any] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(t.pk, f"{t.name} (you alone)" if t.personal else t.name) for t in teams or []]
        field = self.fields["team"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = choices
        if len(choices) < 2:  # only the personal team: nothing to choose
            field.widget = forms.HiddenInput()


class UploadForm(forms.Form):
    file = forms.FileField(allow_empty_file=True)

    def __init__(self, *args: Any, game: str | None = None, **kwargs: Any) -> None:
        """With `game`, the file input carries the game's size limit (`data-max-bytes`): the page's
        script refuses a larger file before the browser sends it (pages/static/pages/upload-limit.js)."""
        super().__init__(*args, **kwargs)
        self.fields["file"].help_text = ("main.py, or a .zip with main.py at its top or in one top folder (with model "
                                         f"files: up to {human_size(settings.ARMADA.upload_limit()[0])}, or the "
                                         "game's own limit on this site)")
        if game is not None:
            limit, unpacked = settings.ARMADA.upload_limit(game)
            self.fields["file"].widget.attrs.update({"data-max-bytes": str(limit)})
            self.fields["file"].help_text = (
                f"main.py, or a .zip with main.py at its top or in one top folder (with model files: at most "
                f"{human_size(limit)}, {human_size(unpacked)} unpacked and {settings.ARMADA.upload_max_files} "
                "files, this game's limits on this site)")
