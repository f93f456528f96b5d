"""Sign-ups at the same moment (real transactions on their own connections: PostgreSQL under CI,
the SQLite file locally): one name in two cases makes one account, and a team made under the same
name at once leaves the new account a personal team of its own, never a server error."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from armada_web.accounts import services
from armada_web.teams.models import Team
from armada_web.teams.services import create_team
from armada_web.web.errors import Conflict
from tests.support.threads import at_once

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-test-password-42"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def outcome(call):
    """What a call came to: "ok", or the class name of what it raised."""
    def run():
        try:
            call()
        except Exception as exc:  # (the test counts what each raised)
            return type(exc).__name__
        return "ok"
    return run


@pytest.mark.parametrize("round_", range(3))
def test_one_name_in_two_cases_at_once_makes_one_account(round_):
    """A review: "carol" and "Carol" signing up together made both accounts, or a 500 (an
    IntegrityError on the personal team's name)."""
    names = ["carol", "Carol"]
    results = at_once([outcome(lambda n=n: services.sign_up(username=n, email="", password=PASSWORD))
                       for n in names])
    assert sorted(results) == ["Conflict", "ok"]
    assert User.objects.filter(username__iexact="carol").count() == 1
    assert Team.objects.filter(personal=True, name__iexact="carol").count() == 1


def test_a_team_made_at_once_under_the_new_accounts_name_leaves_it_another():
    founder = services.sign_up(username="founder", email="", password=PASSWORD)
    results = at_once([outcome(lambda: services.sign_up(username="dave", email="", password=PASSWORD)),
                       outcome(lambda: create_team(user=founder, name="dave"))])
    assert results == ["ok", "ok"] or sorted(results) == ["Conflict", "ok"]  # (the team may be refused instead)
    dave = User.objects.get(username="dave")
    assert Team.objects.filter(personal=True, memberships__user=dave).count() == 1


def test_a_taken_name_is_a_clear_refusal():
    services.sign_up(username="erin", email="", password=PASSWORD)
    with pytest.raises(Conflict, match="already exists"):
        services.sign_up(username="ERIN", email="", password=PASSWORD)


def test_the_longest_name_signs_up():
    """A review: the name's lock was keyed on the name itself, longer than a key may be (100): on
    PostgreSQL a name of 101 to 150 characters failed its sign-up with a server error."""
    name = "N" * 150
    services.sign_up(username=name, email="", password=PASSWORD)
    assert User.objects.filter(username=name).exists()
