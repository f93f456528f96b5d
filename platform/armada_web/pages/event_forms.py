"""Event forms: a new event, entering a bot. They only parse; events.services checks the rules, so
a blank name or a number out of its range is said in the service's words (the API's too), not
Django's ("This field is required.", "Ensure this value is greater than or equal to 1.")."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from armada_web.bots.models import Bot, Game
from armada_web.events.access import changeable_fields
from armada_web.events.models import Event, EventFormat
from armada_web.events.services import FAR_TOO_LONG, INVITE_MAX, NAME_MAX, NAME_READ_MAX


def _name() -> forms.CharField:
    """An event's name, read only: blank or too long is the service's to refuse; one far past the
    rule is refused unread, in its words."""
    return forms.CharField(required=False, max_length=NAME_READ_MAX, strip=False,
                           error_messages={"max_length": FAR_TOO_LONG}, help_text=f"at most {NAME_MAX} characters")


def _whole(low: int, help_text: str) -> forms.CharField:
    """A number as typed (None when blank): whether it is a whole number in its range is the
    service's to say. The input carries `low` (and `max`, set by the form) for the browser."""
    return forms.CharField(required=False, empty_value=None, help_text=help_text,
                           widget=forms.NumberInput(attrs={"min": str(low)}))


class EventForm(forms.Form):
    name = _name()
    game = forms.ChoiceField(choices=Game.choices)
    format = forms.ChoiceField(choices=EventFormat.choices,
                               help_text="round robin: every pair plays its games; ladder: paired until it ends")
    games_per_pair = _whole(1, "round robin: games of each pair (sides alternate)")
    starts = forms.DateTimeField(required=False, help_text="the date and time in UTC, whatever format your "
                                 "browser shows (empty: you start it)",
                                 widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    ends = forms.DateTimeField(required=False, help_text="UTC; required for a ladder",
                               widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    max_entrants = _whole(2, "")
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


class EventEditForm(forms.Form):
    """What its owner may change now (`events.services.edit_event`): the name always; while it is
    open its times and numbers; a running ladder's end. Only the fields shown are sent on."""

    name = _name()
    starts = forms.DateTimeField(required=False, help_text="UTC (empty: you start it)",
                                 widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"))
    ends = forms.DateTimeField(required=False, help_text="UTC; required for a ladder",
                               widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"))
    max_entrants = _whole(2, "not below its entries")
    games_per_pair = _whole(1, "round robin: games of each pair")

    def __init__(self, *args: Any, event: Event, draft: dict[str, str] | None = None, **kwargs: Any) -> None:
        """`draft`: what the owner typed in a change that was refused, shown again over the event's values."""
        kwargs.setdefault("initial", {"name": event.name, "starts": event.starts, "ends": event.ends,
                                      "max_entrants": event.max_entrants, "games_per_pair": event.games_per_pair,
                                      **(draft or {})})
        super().__init__(*args, **kwargs)
        config = settings.ARMADA
        for name, limit in (("games_per_pair", config.event_max_games_per_pair),
                            ("max_entrants", config.event_max_entrants)):
            self.fields[name].widget.attrs["max"] = str(limit)
        keep = set(changeable_fields(event=event))
        if event.format != EventFormat.ROUND_ROBIN:
            keep.discard("games_per_pair")
        for field in set(self.fields) - keep:
            del self.fields[field]

    def changes(self) -> dict[str, Any]:
        """The cleaned values to send on, less a time left as the form showed it (to the minute): sent
        again, a start already past was refused, and seconds were cut off a time (an events trial:
        a rename moved a ladder's end 42 s earlier)."""
        values = dict(self.cleaned_data)
        for name in ("starts", "ends"):
            shown = self.initial.get(name)
            if name in values and (shown.replace(second=0, microsecond=0) if shown else None) == values[name]:
                del values[name]
        return values


class EntryForm(forms.Form):
    """One of the signed-in user's bots of the event's game, and the invite code."""

    bot = forms.ChoiceField()
    invite = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, bots: list[Bot], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["bot"] = forms.ChoiceField(choices=[(b.pk, b.name) for b in bots])


class InvitationForm(forms.Form):
    """Teams (by name) and users (by username) to invite, comma-separated or one a line."""

    # (room for the most names the service takes at once, each as long as a name may be)
    teams = forms.CharField(required=False, max_length=INVITE_MAX * 42, strip=False,  # (its line breaks tell)
                            widget=forms.Textarea(attrs={"rows": 2}),
                            help_text="team names, comma-separated or one a line (a name with a comma: one a line)")
    users = forms.CharField(required=False, max_length=INVITE_MAX * 152, widget=forms.Textarea(attrs={"rows": 2}),
                            help_text="usernames, comma-separated or one a line (each is invited as their personal "
                            "team)")

    def names(self, field: str) -> list[str]:
        """The names typed. Usernames hold no comma: split at commas and line breaks. A team's name
        may hold one: one a line once there is a line break (a name with a comma typed alone: end it
        with a line break), else comma-separated."""
        text = self.cleaned_data.get(field, "")
        if field == "users":
            parts = text.replace("\n", ",").split(",")
        else:
            parts = text.splitlines() if "\n" in text else text.split(",")
        return [n.strip() for n in parts if n.strip()]
