"""One test of staff (`web.roles.is_staff`) for every app: signed in, active and staff."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from armada_web.web.roles import is_staff

pytestmark = pytest.mark.django_db


def test_only_an_active_signed_in_staff_account_is_staff(make_user):
    organiser, player, gone = make_user("organiser"), make_user("player"), make_user("gone")
    organiser.is_staff = gone.is_staff = True
    gone.is_active = False
    assert is_staff(organiser)
    assert not is_staff(player)
    assert not is_staff(gone)  # a deactivated organiser keeps no staff view, on any page or API
    assert not is_staff(AnonymousUser())
    assert not is_staff(None)


def test_a_platform_failures_cause_is_shown_to_staff_alone(make_user):
    from armada_web.jobs.notes import shown_note

    note = "platform failure: the sandbox is unavailable: /var/lib/armada/slots/3 is full"
    organiser, gone = make_user("organiser"), make_user("gone")
    organiser.is_staff = gone.is_staff = True
    gone.is_active = False
    assert shown_note(note, user=organiser) == note
    assert "/var/lib" not in shown_note(note, user=gone)
    assert "/var/lib" not in shown_note(note, user=None)
