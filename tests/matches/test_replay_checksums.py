"""A recorded match keeps its replay's size and SHA-256 as stored (issue 25: the replays dataset lists
them without reading storage)."""

from __future__ import annotations

import hashlib

import pytest

from armada.games.base import Result
from armada.referee.match import MatchOutcome, PlayerReport
from tests.support.replays import played

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _unconsumed(settings):
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)


def test_recording_keeps_the_stored_replays_size_and_checksum(make_user, valid_version):
    from armada_web.jobs.leases import claim
    from armada_web.matches import storage
    from armada_web.matches.execution import MATCH, record
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    match = create_match(game="galaxy", first=valid_version(make_user("alice"), "alpha"),
                         second=valid_version(make_user("bob"), "bravo"))
    lease = claim(kind=MATCH, job_id=match.pk)
    stored = storage.store_replay(match.pk, lease.attempt, played())
    data = storage.read(stored.name)
    assert data is not None and (stored.size, stored.sha256) == (len(data), hashlib.sha256(data).hexdigest())
    outcome = MatchOutcome(Result(1, "turn_limit", 4), [PlayerReport(s, "x", "ok", "") for s in (1, 2)], played())
    seats = list(match.participants.order_by("seat"))
    assert record(lease=lease, match=match, participants=seats, outcome=outcome,
                  replay_name=stored.name, log_names={1: "a", 2: "b"}, stored=stored) == "finished"
    kept = Match.objects.get(pk=match.pk)
    assert (kept.replay.name, kept.replay_size, kept.replay_sha256) == (stored.name, stored.size, stored.sha256)
