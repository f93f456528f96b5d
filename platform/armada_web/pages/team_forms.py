"""Team forms: a new team (the name's rules are `teams.logic.names`, checked by the service)."""

from __future__ import annotations

from django import forms

from armada_web.teams.logic.names import FAR_TOO_LONG, NAME_MAX, NAME_MIN, NAME_READ_MAX


class TeamForm(forms.Form):
    """Reads the name only: a blank or too long one is the service's to refuse, in the words the API
    and the CLI show too ("the team's name must be 3 to 40 characters long (it has 41)"), not
    Django's "This field is required."; a name far past the rule is refused unread, in those words."""

    name = forms.CharField(required=False, max_length=NAME_READ_MAX, strip=False,
                           error_messages={"max_length": FAR_TOO_LONG},
                           help_text=f"{NAME_MIN} to {NAME_MAX} characters; unique whatever the case")
