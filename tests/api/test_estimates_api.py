"""The bot page's and /status/'s estimates in the API (a deadline-day trial found them only on the
pages): `GET /api/bots/{id}/`'s `next_game` and `GET /api/status/`'s `new_version`."""

from __future__ import annotations

import pytest

from armada_web.ladder.queries import new_version_estimates, next_ranked_game

pytestmark = pytest.mark.django_db


def test_a_bots_detail_has_the_bot_pages_estimate(api, make_user, valid_version):
    owner = make_user("owner")
    playing = valid_version(owner, "playing")
    client = api(make_user("stranger"))  # anyone reads it, as the bot page shows it to anyone
    shown = next_ranked_game(playing.bot_id)
    assert client.get(f"/api/bots/{playing.bot_id}/").json()["next_game"] == {
        "seconds": shown.seconds, "why": shown.why, "settled_seconds": shown.settled}
    league = valid_version(owner, "racer", game="mothership")
    assert client.get(f"/api/bots/{league.bot_id}/").json()["next_game"] is None  # no ranked games
    created = client.post("/api/bots/", {"name": "empty", "game": "galaxy"}, format="json").json()
    assert created["next_game"] == {"seconds": None, "settled_seconds": None,
                                    "why": "it plays no ranked games now: it has no valid version playing"}


def test_status_has_the_estimates_for_a_new_version(client):
    data = client.get("/api/status/").json()
    expected = {game: {"seconds": e.seconds, "why": e.why, "settled_seconds": e.settled,
                       "settled_new_bot_seconds": e.settled_new_bot} for game, e in new_version_estimates().items()}
    assert data["new_version"] == expected and "galaxy" in expected and "mothership" not in expected


def test_a_missing_bot_is_said_in_the_apis_own_words(api, make_user):
    """Deleting a bot twice answered Django's "No Bot matches the given query." (an API trial)."""
    owner = make_user("owner")
    client = api(owner)
    bot = client.post("/api/bots/", {"name": "gone-bot", "game": "galaxy"}, format="json").json()
    assert client.delete(f"/api/bots/{bot['id']}/").status_code == 204
    again = client.delete(f"/api/bots/{bot['id']}/")
    assert again.status_code == 404 and again.json() == {"detail": "no such bot"}
    assert client.get("/api/bots/999999/").json() == {"detail": "no such bot"}
