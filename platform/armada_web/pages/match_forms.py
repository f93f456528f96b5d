"""The match browser's filter form (GET): it only parses; matches.listing checks and applies the filters."""

from __future__ import annotations

from django import forms

from armada_web.bots.models import Game
from armada_web.matches.models import MatchKind, MatchStatus, Result

ANY = [("", "any")]


class MatchFilterForm(forms.Form):
    game = forms.ChoiceField(choices=ANY + list(Game.choices), required=False)
    bot = forms.CharField(max_length=40, required=False, help_text="a bot's name or id")
    opponent = forms.CharField(max_length=40, required=False, help_text="with bot: its opponent")
    version = forms.CharField(max_length=10, required=False, help_text="with bot: its version number")
    kind = forms.ChoiceField(choices=ANY + list(MatchKind.choices), required=False)
    result = forms.ChoiceField(choices=ANY + list(Result.choices), required=False, help_text="with bot: its result")
    status = forms.ChoiceField(choices=ANY + list(MatchStatus.choices), required=False)
