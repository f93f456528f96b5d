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
    for path in ("active", "move"):
        assert f"/bots/{bot.pk}/{path}/" in actions, (path, actions)
    assert not [a for a in actions if a.startswith("/api/")], actions
    assert f"/bots/{bot.pk}/retire/" not in actions  # retiring asks first (its own page)

    made_active = client.post(f"/bots/{bot.pk}/active/", {"version": first.pk})
    assert made_active.status_code == 302 and made_active["Location"] == f"/bots/{bot.pk}/"
    unconfirmed = client.post(f"/bots/{bot.pk}/move/", {"team": team.pk}, follow=True)
    assert "tick the box to confirm" in unconfirmed.content.decode() and Bot.objects.get(pk=bot.pk).team_id != team.pk
    moved = client.post(f"/bots/{bot.pk}/move/", {"team": team.pk, "confirm": "yes"})
    assert moved.status_code == 302 and Bot.objects.get(pk=bot.pk).team_id == team.pk


def test_retiring_asks_first_then_retires(client, make_user, valid_version):
    """Retiring was one click that cannot be undone, even on a team's shared bot (a new user's
    trial): the button opens a page saying what happens; its POST retires."""
    alice, bob = make_user("alice"), make_user("bob")
    team = teams.create_team(user=alice, name="<b>crew</b>")
    teams.join_team(user=bob, team=team, key=team.join_key)
    bot = valid_version(alice, "alpha").bot
    Bot.objects.filter(pk=bot.pk).update(team=team)
    client.force_login(bob)
    html = client.get(f"/bots/{bot.pk}/").content.decode()
    assert f'<a class="button secondary" id="retire" href="/bots/{bot.pk}/retire/">' in html  # (a link: no trailing ?)
    asked = client.get(f"/bots/{bot.pk}/retire/")
    page = asked.content.decode()
    assert asked.status_code == 200 and "Retire alpha (Galaxy)?" in page and "cannot be undone" in page
    assert "&lt;b&gt;crew&lt;/b&gt;" in page and "<b>crew" not in page  # the team's name, escaped
    assert FORM.findall(page) == [] and '<form method="post" id="confirm-form">' in page  # posts to itself
    assert Bot.objects.get(pk=bot.pk).retired is None  # asking changed nothing
    done = client.post(f"/bots/{bot.pk}/retire/")
    assert done.status_code == 302 and done["Location"] == f"/bots/{bot.pk}/"
    assert Bot.objects.get(pk=bot.pk).retired is not None
    client.force_login(make_user("carol"))
    assert client.get(f"/bots/{bot.pk}/retire/").status_code == 404  # not hers: as a missing bot


def test_a_pinned_version_says_who_may_have_pinned_it(client, make_user, valid_version):
    """A team member's pin read "pinned by the owner" (a new user's trial): nobody records who
    pinned, so a team's bot says a member of the team did; a personal bot, its owner."""
    from armada_web.bots import services as bots
    from tests.pages.test_bot_page import second_version

    alice, bob = make_user("alice"), make_user("bob")
    first = valid_version(alice, "alpha")
    second_version(valid_version, alice, first)
    client.force_login(alice)
    bots.set_active(bot=first.bot, user=alice, version_id=first.pk)
    assert "(pinned by its owner: newer valid versions" in client.get(f"/bots/{first.bot_id}/").content.decode()
    team = teams.create_team(user=alice, name="crew")
    teams.join_team(user=bob, team=team, key=team.join_key)
    Bot.objects.filter(pk=first.bot_id).update(team=team)
    client.force_login(bob)
    html = client.get(f"/bots/{first.bot_id}/").content.decode()
    assert "(pinned by a member of the team:" in html and "by the owner" not in html


def test_the_delete_page_names_the_bots_game(client, make_user):
    """A team with a Galaxy and a Mothership Down bot of one name was asked "Delete alpha?" (a new
    user's trial): the page and its button say which."""
    from armada_web.bots import services as bots

    alice = make_user("alice")
    galaxy = bots.create_bot(user=alice, name="alpha", game="galaxy")
    mothership = bots.create_bot(user=alice, name="alpha", game="mothership")
    client.force_login(alice)
    html = client.get(f"/bots/{mothership.pk}/delete/").content.decode()
    assert "<h1>Delete alpha (Mothership Down)?</h1>" in html and "Delete alpha (Mothership Down)</button>" in html
    assert "<h1>Delete alpha (Galaxy)?</h1>" in client.get(f"/bots/{galaxy.pk}/delete/").content.decode()


def test_a_league_bots_page_says_nothing_of_matches_or_ratings(client, make_user, valid_version):
    """A competitor's trial: a Mothership Down bot's page offered a version comparison ("Neither
    version has finished a match": its versions never play matches) and its retire page spoke of
    ladder matches and ratings; the league is its table."""
    alice = make_user("alice")
    first = valid_version(alice, "race", game="mothership")
    from armada_web.bots import services as bots

    bots.upload_version(bot=first.bot, user=alice, filename="main.py", data=b"print(2)\n")
    client.force_login(alice)
    page = client.get(f"/bots/{first.bot.pk}/?a=1&b=2").content.decode()
    assert 'id="comparison"' not in page and "Neither version has finished a match" not in page
    asked = client.get(f"/bots/{first.bot.pk}/retire/").content.decode()
    assert "It leaves the league now" in asked and "ladder matches" not in asked
    galaxy = valid_version(alice, "alpha")
    assert "no more ladder matches" in client.get(f"/bots/{galaxy.bot.pk}/retire/").content.decode()
