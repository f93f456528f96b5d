"""Staff's match list in the admin: which worker host played each match (a column, a filter whose
choices are the recent matches' hosts, the search)."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_match_list_shows_and_filters_the_worker_host(make_user, valid_version):
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    first, second = valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "bravo")
    made = {}
    for host in ("worker-2", "worker-2", "vm", ""):
        match = create_match(game="galaxy", first=first, second=second, seed=1)
        Match.objects.filter(pk=match.pk).update(host=host, status="void" if host else "queued")
        made.setdefault(host, []).append(match.pk)
    client = Client()
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    page = client.get("/admin/matches/match/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "column-host" in text and "?host=worker-2" in text and "?host=vm" in text
    shown = client.get("/admin/matches/match/", {"host": "worker-2"}).context["cl"].result_list
    assert sorted(m.pk for m in shown) == sorted(made["worker-2"])
    found = client.get("/admin/matches/match/", {"q": "vm"}).context["cl"].result_list
    assert [m.pk for m in found] == made["vm"]


def test_the_admin_writes_times_as_the_pages_do(make_user, valid_version):
    """24-hour times and ISO dates (web/formats), not Django's English "Dec. 7, 2026, 1:05 p.m."."""
    from datetime import UTC, datetime

    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    first, second = valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "bravo")
    match = create_match(game="galaxy", first=first, second=second, seed=1)
    Match.objects.filter(pk=match.pk).update(created=datetime(2026, 12, 7, 13, 5, 9, tzinfo=UTC))
    client = Client()
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    text = client.get("/admin/matches/match/").content.decode()
    assert "2026-12-07 13:05:09" in text
    assert "p.m." not in text and "Dec. 7" not in text
