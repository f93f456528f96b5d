"""What a version used in its validation game against its budgets: recorded by the validation,
shown by `GET /api/versions/{id}/` and the version's page (the game itself is a stand-in here:
the sandbox's measuring is tests/sandbox/test_stack.py)."""

from __future__ import annotations

from typing import Any

import pytest

from armada.games.base import Result
from armada.referee.clock import Limits
from armada.referee.match import MatchOutcome, PlayerReport
from armada.timings import RequestTime, timings_field

pytestmark = pytest.mark.django_db
MIB = 1024 * 1024


def outcome(init_ms: float, peak_bytes: int | None, status: str = "ok", detail: str = "",
            requests: int = 2) -> MatchOutcome:
    """A finished validation game: seat 1 (the upload) took `init_ms` over init, peaked at `peak_bytes`
    and was sent `requests` requests (1: it went at init)."""
    mine = [RequestTime(0, init_ms, 10000), RequestTime(1, 3.0, 10000)][:requests]
    timings = timings_field({"init_ms": 30000, "turn_ms": 1000, "bank_ms": 10000},
                            {1: mine,
                             2: [RequestTime(0, 40.0, 10000)]})
    players = [PlayerReport(1, "Loader", status, detail, "loaded\n", memory_peak_bytes=peak_bytes),
               PlayerReport(2, "Greedy", "ok", "")]
    return MatchOutcome(result=Result(winner=1, outcome="win", turns=2, scores={}), players=players,
                        replay={"engine_version": "test", "timings": timings, "steps": []})


@pytest.fixture
def validate(make_user, monkeypatch):
    """Upload a galaxy version and validate it against the stand-in game `played`; the version."""
    from armada_web.bots import validation
    from armada_web.bots.services import create_bot, upload_version
    from armada_web.jobs.leases import claim

    def run(played: MatchOutcome) -> Any:
        owner = make_user()
        bot = create_bot(user=owner, name="loader", game="galaxy")
        version = upload_version(bot=bot, user=owner, filename="main.py", data=b"print(1)\n")
        monkeypatch.setattr(validation, "play", lambda **kwargs: played)
        lease = claim(kind=validation.VALIDATION, job_id=version.pk)
        assert lease is not None
        validation.run(lease)
        version.refresh_from_db()
        return version

    return run


def test_the_api_shows_what_the_validation_used_against_its_budgets(validate, settings, client) -> None:
    # The organisers' budgets of this game (ARMADA_GALAXY_INIT_MS, ARMADA_SANDBOX_GALAXY_MEMORY_MB).
    galaxy = settings.ARMADA.game("galaxy")
    settings.ARMADA = settings.ARMADA.with_game("galaxy", times=Limits(20000, 1000, 10000),
                                                sandbox=galaxy.sandbox.replace({"memory_mb": 2048}))
    version = validate(outcome(8123.6, 364 * MIB + 1))
    assert version.status == "valid"
    expected = {"init_ms": 8124, "init_budget_ms": 20000, "memory_peak_mib": 365, "memory_limit_mib": 2048}
    assert version.resources == expected
    client.force_login(version.bot.owner)
    data = client.get(f"/api/versions/{version.pk}/").json()
    assert data["resources"] == expected
    page = client.get(f"/bots/{version.bot_id}/versions/{version.number}/").content.decode()
    assert ("init <strong>8124 ms</strong> of its 20000 ms budget · memory peak "
            "<strong>365 MiB</strong> of its 2048 MiB limit") in page
    # The page names the version's id in the API (not its number within the bot).
    assert f'<a href="/api/versions/{version.pk}/" id="api-link">in the API</a> (version id {version.pk})' in page


def test_an_out_of_memory_version_records_its_peak_and_unknowns_stay_null(validate, client) -> None:
    version = validate(outcome(2929.0, None, "memory", "killed for exceeding its memory limit (peak 1024 MiB, "
                                                       "limit 1024 MiB); stopped before answering init (id 0)",
                               requests=1))
    assert version.status == "invalid"
    assert version.detail.startswith("memory: killed for exceeding its memory limit (peak 1024 MiB, limit 1024 MiB)")
    client.force_login(version.bot.owner)
    data = client.get(f"/api/versions/{version.pk}/").json()
    # Gone before answering init: the referee's 2929 ms is no init time (it would read as "init was fine").
    assert data["resources"]["memory_peak_mib"] is None and data["resources"]["init_ms"] is None
    page = client.get(f"/bots/{version.bot_id}/versions/{version.number}/").content.decode()
    assert "memory peak <strong>not measured</strong>" in page
    assert "init <strong>not answered</strong> (its budget: " in page  # a crash, not a slow init
    assert '<code id="try-locally">armada play loader builtin:' in page  # the bot's own name in the command to try


@pytest.mark.parametrize(("status", "requests", "init_ms"), [
    ("crashed", 1, None),  # crashed at start-up (a corrupt model file)
    ("crashed", 2, 300),  # answered init, crashed at its first turn
    ("timeout", 1, None),  # no reply to init: not "init 30000 ms of its 30000 ms budget" (a trial)
    ("timeout", 2, 300),  # answered init, then ran out of time
    ("protocol", 1, 300),  # answered init, wrongly
])
def test_an_init_time_only_for_a_bot_that_answered_init(validate, status, requests, init_ms) -> None:
    version = validate(outcome(300.0, 100 * MIB, status, "went", requests=requests))
    assert version.resources["init_ms"] == init_ms


def test_a_version_validated_before_resources_were_kept_shows_nulls(make_user, client) -> None:
    from armada_web.bots.services import create_bot, upload_version

    owner = make_user()
    version = upload_version(bot=create_bot(user=owner, name="older", game="galaxy"), user=owner,
                             filename="main.py", data=b"print(1)\n")
    client.force_login(owner)
    data = client.get(f"/api/versions/{version.pk}/").json()
    assert data["resources"] == {"init_ms": None, "init_budget_ms": None, "memory_peak_mib": None,
                                 "memory_limit_mib": None}
    assert 'id="resources"' not in client.get(f"/bots/{version.bot_id}/versions/{version.number}/").content.decode()


def test_what_a_version_used_is_its_teams_alone(validate, client, make_user) -> None:
    # Init time and memory peak tell a model's size: private like the sha256, public like nothing.
    version = validate(outcome(8123.6, 364 * MIB))
    page = f"/bots/{version.bot_id}/versions/{version.number}/"
    for who in (None, make_user("stranger")):
        if who is not None:
            client.force_login(who)
        data = client.get(f"/api/versions/{version.pk}/").json()
        assert "resources" not in data and data["status"] == "valid"
        assert 'id="resources"' not in client.get(page).content.decode()
    client.force_login(version.bot.owner)
    assert client.get(f"/api/versions/{version.pk}/").json()["resources"]["init_ms"] == 8124
    assert 'id="resources"' in client.get(page).content.decode()
