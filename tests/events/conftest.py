"""Every test here runs with storage, cache and queues of its own (tests/support/isolation.py);
`club` is a private round robin with two entries, for the tests of an event's owner and members."""

import pytest

from tests.support.isolation import _isolated_site  # noqa: F401


@pytest.fixture
def club(make_user, valid_version, api):
    """olga's private round robin; mia and nils entered with the code; eve is not in it."""
    people = {name: api(make_user(name)) for name in ("olga", "mia", "nils", "eve")}
    bots = {name: valid_version(client.user, f"{name}-bot").bot for name, client in people.items()}
    made = people["olga"].post("/api/events/", {"name": "Club", "game": "galaxy", "format": "round_robin"},
                               format="json").json()
    for name in ("mia", "nils"):
        answer = people[name].post(f"/api/events/{made['slug']}/entries/",
                                   {"bot": bots[name].pk, "invite": made["invite"]}, format="json")
        assert answer.status_code == 201, answer.json()
    return {**people, "bots": bots, "slug": made["slug"], "invite": made["invite"]}
