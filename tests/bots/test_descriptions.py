"""A bot's description is free text shown on its page and its owner's: lines and tabs are kept, but
a control character (an escape) or a text direction override is refused, as in a team's or an
event's name (an escaping review found `\u202e` and `\x1b[31m` kept in descriptions)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from armada_web.bots.models import Bot

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("description", "refusal"), [
    ("d ab\u202ecd", "a bot's description may not hold text direction marks or overrides"),
    ("x\u2066y", "a bot's description may not hold text direction marks or overrides"),
    ("esc\x1b[31mred", "a bot's description may not hold control characters"),
    ("bell\x07", "a bot's description may not hold control characters"),
])
def test_escapes_and_direction_overrides_are_refused_with_the_reason(make_user, description, refusal):
    client = APIClient()
    client.force_authenticate(make_user("mallory"))
    answer = client.post("/api/bots/", {"name": "tricky", "game": "galaxy", "description": description}, format="json")
    assert answer.status_code == 400 and answer.json()["detail"].startswith(refusal)
    assert not Bot.objects.exists()  # nothing half made


def test_lines_tabs_and_any_alphabet_are_kept(make_user):
    client = APIClient()
    client.force_authenticate(make_user("alice"))
    text = "Greedy, then careful.\n\tLine two: שלום, Ωmega, 中文"
    answer = client.post("/api/bots/", {"name": "calm", "game": "galaxy", "description": text}, format="json")
    assert answer.status_code == 201, answer.json()
    assert Bot.objects.get(name="calm").description == text


def test_a_description_of_2000_characters_is_kept_and_one_more_is_refused(make_user):
    """The bound, in the service every caller goes through (the API's serializer and the page's form
    check it first, each with its own words): 2000 characters fit; 2001 are refused, no bot made."""
    from armada_web.bots import services
    from armada_web.web.errors import Invalid

    alice = make_user("alice")
    assert len(services.create_bot(user=alice, name="wordy", game="galaxy", description="d" * 2000).description) == 2000
    with pytest.raises(Invalid, match=r"^description too long: 2001 characters \(at most 2000\)$"):
        services.create_bot(user=alice, name="wordier", game="galaxy", description="d" * 2001)
    client = APIClient()
    client.force_authenticate(alice)
    long = client.post("/api/bots/", {"name": "wordier", "game": "galaxy", "description": "d" * 2001}, format="json")
    assert long.status_code == 400 and "2000 characters" in long.json()["detail"]
    assert not Bot.objects.filter(name="wordier").exists()
