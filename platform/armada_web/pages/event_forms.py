"""Event forms: a new event, entering a bot. They only parse; events.services checks the rules."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from armada_web.bots.models import Bot, Game
from armada_web.events.models import EventFormat
from armada_web.events.services import INVITE_MAX


class EventForm(forms.Form):
    name = forms.CharField(max_length=100)
    game = forms.ChoiceField(choices=Game.choices)
    format = forms.ChoiceField(choices=EventFormat.choices,
                               help_text="round robin: every pair plays its games; ladder: paired until it ends")
    games_per_pair = forms.IntegerField(required=False, min_value=1, help_text="round robin: games of each pair "
                                        "(sides alternate)")
    starts = forms.DateTimeField(required=False, help_text="UTC, e.g. 2026-03-01 18:00 (empty: you start it)",
                                 widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    ends = forms.DateTimeField(required=False, help_text="UTC; required for a ladder",
                               widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    max_entrants = forms.IntegerField(required=False, min_value=2)
    public = forms.BooleanField(required=False, help_text="anyone may see it (else only its members)")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """The inputs carry the site's limits (`max`), so the browser says them before sending; the
        service checks them again."""
        super().__init__(*args, **kwargs)
        config = settings.ARMADA
        for name, limit in (("games_per_pair", config.event_max_games_per_pair),
                            ("max_entrants", config.event_max_entrants)):
            self.fields[name].widget.attrs["max"] = str(limit)
            self.fields[name].help_text = f"{self.fields[name].help_text} (at most {limit})".lstrip(" ")


class EntryForm(forms.Form):
    """One of the signed-in user's bots of the event's game, and the invite code."""

    bot = forms.ChoiceField()
    invite = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, bots: list[Bot], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["bot"] = forms.ChoiceField(choices=[(b.pk, b.name) for b in bots])


class InvitationForm(forms.Form):
    """Teams (by name) and users (by username) to invite, comma-separated."""

    # (room for the most names the service takes at once, each as long as a name may be)
    teams = forms.CharField(required=False, max_length=INVITE_MAX * 42, help_text="team names, comma-separated")
    users = forms.CharField(required=False, max_length=INVITE_MAX * 152,
                            help_text="usernames, comma-separated (each is invited as their personal team)")

    def names(self, field: str) -> list[str]:
        return [n.strip() for n in self.cleaned_data.get(field, "").split(",") if n.strip()]
