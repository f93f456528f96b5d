"""The bot page's buttons post where they are handled: "Make active", "Retire" and the move form go
to the page views (which redirect back to the page), never to the JSON API's routes of the same
name (which answer a browser's form with 415). Each URL name is defined once, so `{% url %}`
cannot pick another view."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from armada_web.bots.models import Bot
from armada_web.teams import services as teams

pytestmark = pytest.mark.django_db
FORM = re.compile(r'<form method="post" action="([^"]+)"')


def url_names(resolver: URLResolver, namespace: str = "") -> list[str]:
    names = []
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            names += url_names(pattern, namespace + (f"{pattern.namespace}:" if pattern.namespace else ""))
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.append(namespace + pattern.name)
    return names


def test_no_url_name_is_defined_twice():
    twice = [name for name, count in Counter(url_names(get_resolver())).items() if count > 1]
    assert twice == []


def test_the_bot_pages_buttons_post_to_the_page_views(client, make_user, valid_version):
    from tests.pages.test_bot_page import second_version

    alice = make_user("alice")
    first = valid_version(alice, "alpha")
    second_version(valid_version, alice, first)  # v2 active: v1 has a "Make active" button
    team = teams.create_team(user=alice, name="crew")
    client.force_login(alice)
    bot = first.bot
    actions = FORM.findall(client.get(f"/bots/{bot.pk}/").content.decode())
    for path in ("active", "retire", "move"):
        assert f"/bots/{bot.pk}/{path}/" in actions, (path, actions)
    assert not [a for a in actions if a.startswith("/api/")], actions

    made_active = client.post(f"/bots/{bot.pk}/active/", {"version": first.pk})
    assert made_active.status_code == 302 and made_active["Location"] == f"/bots/{bot.pk}/"
    moved = client.post(f"/bots/{bot.pk}/move/", {"team": team.pk})
    assert moved.status_code == 302 and Bot.objects.get(pk=bot.pk).team_id == team.pk
