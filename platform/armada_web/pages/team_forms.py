"""Team forms: a new team (the name's rules are `teams.logic.names`, checked by the service)."""

from __future__ import annotations

from django import forms

from armada_web.teams.logic.names import NAME_MAX, NAME_MIN


class TeamForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX, strip=False,
                           help_text=f"{NAME_MIN} to {NAME_MAX} characters; unique whatever the case")
