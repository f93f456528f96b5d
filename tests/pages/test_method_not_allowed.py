"""A POST-only address opened with GET answered 405 with an empty body, which Chromium shows as
"This page isn't working" (a new user's trial): a page's 405 is the site's page naming the button
that does it, with the Allow header; the API's 405 stays JSON."""

from __future__ import annotations

import pytest

from armada_web.teams import services as teams

pytestmark = pytest.mark.django_db


def test_a_pages_405_names_the_button_and_the_apis_stays_json(client, make_user, valid_version):
    alice = make_user("alice")
    team = teams.create_team(user=alice, name="<i>crew</i>")
    bot = valid_version(alice, "alpha").bot
    client.force_login(alice)
    for url, button, page in [
        ("/accounts/logout/", "the Log out button", 'href="/"'),
        (f"/teams/{team.pk}/key/", "the Renew the key button", f'href="/teams/{team.pk}/"'),
        (f"/bots/{bot.pk}/active/", "Make active button", f'href="/bots/{bot.pk}/"'),
        ("/challenges/", "a Challenge button", 'href="/"'),
    ]:
        response = client.get(url)
        html = response.content.decode()
        assert response.status_code == 405 and response["Content-Type"].startswith("text/html"), url
        assert "POST" in response["Allow"], url
        assert 'id="method-not-allowed"' in html and button in html and page in html, url
        assert 'class="top"' in html or "<header" in html  # the site's page, with its header
    assert client.get("/accounts/logout/").wsgi_request.user.is_authenticated  # nothing was done
    api = client.get(f"/api/teams/{team.pk}/key/")
    assert api.status_code == 405 and api["Content-Type"] == "application/json"
    assert api.json() == {"detail": 'Method "GET" not allowed.'}
