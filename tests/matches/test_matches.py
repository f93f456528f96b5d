"""Running matches in-process (real Docker, the task's own functions): a finished ranked match
changes both ratings once, a second delivery does nothing, a crash is a loss, a platform
failure is `void` with no rating change (storage that cannot give an archive: given back first),
the reaper re-queues and fails, benching."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.services import require_docker

pytestmark = [pytest.mark.django_db, pytest.mark.docker]

CRASHER = 'import sys\nprint("no plan", file=sys.stderr, flush=True)\nraise SystemExit(3)\n'


@pytest.fixture(autouse=True)
def _short_games(settings):
    settings.ARMADA = settings.ARMADA.with_game("galaxy", match_config={"max_turns": 20})
    unconsumed = settings.ARMADA.validation_queue
    settings.ARMADA = settings.ARMADA.with_(matches_queue=unconsumed, challenges_queue=unconsumed)


@pytest.fixture
def pair(make_user, valid_version):
    alice, bob = make_user("alice"), make_user("bob")
    return valid_version(alice, "alpha"), valid_version(bob, "bravo", starter="random")


def make(first, second, kind="ranked"):
    from armada_web.matches.services import create_match

    return create_match(game="galaxy", first=first, second=second, kind=kind, seed=7)


def test_a_ranked_match_finishes_and_changes_both_ratings_once(pair):
    require_docker()
    from armada_web.ladder.models import Rating, RatingChange
    from armada_web.matches.models import Match
    from armada_web.matches.storage import read
    from armada_web.matches.tasks import run_match

    first, second = pair
    match = make(first, second)
    assert run_match(match.pk) == "finished"
    assert run_match(match.pk) == "skipped"  # a second delivery does nothing
    match = Match.objects.get(pk=match.pk)
    assert match.status == "finished" and match.attempts == 1 and match.turns
    from armada.games.registry import get_game

    assert match.engine_version == str(get_game("galaxy").engine_version)  # the engine it ran on
    data = read(match.replay.name)
    assert data is not None and data[:2] == b"\x1f\x8b"
    from armada.replay import load_replay_bytes

    assert load_replay_bytes(data)["game"] == "galaxy"
    ratings = {r.version_id: r for r in Rating.objects.all()}
    assert set(ratings) == {first.pk, second.pk}
    assert all(r.games == 1 for r in ratings.values())
    assert RatingChange.objects.count() == 2
    seats = list(match.participants.order_by("seat"))
    assert {p.result for p in seats} <= {"win", "loss", "draw"}
    for p in seats:
        assert p.mu_before == 25.0 and p.mu_after == pytest.approx(ratings[p.version_id].mu)
        assert read(p.log.name) is not None
    if match.outcome["winner"]:
        winner = seats[match.outcome["winner"] - 1]
        assert winner.result == "win" and winner.mu_after > winner.mu_before


def test_a_crashing_bot_loses_and_counts_a_fault(make_user, valid_version):
    require_docker()
    from armada_web.ladder.models import Rating
    from armada_web.matches.tasks import run_match

    good = valid_version(make_user("alice"), "steady")
    bad = valid_version(make_user("bob"), "crashy", code=CRASHER)
    match = make(bad, good)
    assert run_match(match.pk) == "finished"
    seats = {p.seat: p for p in match.participants.all()}
    assert seats[1].result == "loss" and seats[1].status == "crashed"
    assert seats[2].result == "win" and seats[2].status == "ok"
    assert Rating.objects.get(version=bad).faults_in_row == 1
    assert Rating.objects.get(version=bad).mu < 25 < Rating.objects.get(version=good).mu


def test_a_missing_archive_gives_the_match_back_then_voids_it_without_rating_change(pair, monkeypatch, settings):
    """Storage that cannot give an archive is the platform's problem and may pass: the match is
    given back (another attempt), and void only after its last attempt; never a result."""
    from django.core.files.storage import default_storage

    from armada_web.matches import tasks

    monkeypatch.setattr(tasks, "sandbox_ready", lambda: True)  # the archive is read before any bot starts

    from armada_web.ladder.models import Rating
    from armada_web.matches.models import Match
    from armada_web.matches.tasks import run_match

    settings.ARMADA = settings.ARMADA.with_(match_attempts=2)
    first, second = pair
    default_storage.delete(second.archive.name)
    match = make(first, second)
    assert run_match(match.pk) == "queued"
    match = Match.objects.get(pk=match.pk)
    assert match.status == "queued" and "retrying after a platform failure" in match.reason
    assert "archive of seat 2 could not be read from storage" in match.reason
    assert run_match(match.pk) == "void"
    match = Match.objects.get(pk=match.pk)
    assert match.status == "void" and "archive of seat 2" in match.reason
    assert match.engine_version  # recorded at the claim, also for a void match
    assert not Rating.objects.filter(games__gt=0).exists()
    assert all(p.result == "" for p in match.participants.all())


def test_a_claim_records_the_worker_host_that_played_the_match(pair, monkeypatch, settings):
    """Its ARMADA_HOST_NAME (what tells two worker hosts on one network apart), also on a void match;
    the node name is the worker's."""
    from armada_web.matches import execution, tasks
    from armada_web.matches.models import Match

    settings.ARMADA = settings.ARMADA.with_(host_name="worker-7")
    monkeypatch.setattr(tasks, "sandbox_ready", lambda: True)
    monkeypatch.setattr(execution, "execute", lambda lease: execution.void(lease=lease, reason="stopped by the test"))
    match = make(*pair)
    assert Match.objects.get(pk=match.pk).host == ""  # queued: no host played it yet
    assert tasks.run_match(match.pk) == "void"
    match = Match.objects.get(pk=match.pk)
    assert (match.host, match.worker, match.attempts) == ("worker-7", "worker-7", 1)  # run outside Celery: no node
    assert execution.claim_fields("galaxy", "matches.8000@worker-7") == {
        "worker": "matches.8000@worker-7", "host": "worker-7", "engine_version": match.engine_version}


def test_a_bad_engine_config_makes_the_match_void(pair, settings):
    require_docker()
    from armada_web.matches.models import Match
    from armada_web.matches.tasks import run_match

    settings.ARMADA = settings.ARMADA.with_game("galaxy", match_config={"max_turns": -5})
    match = make(*pair)
    assert run_match(match.pk) == "void"
    assert "engine failed" in Match.objects.get(pk=match.pk).reason


def test_the_reaper_requeues_then_fails_a_stuck_match(pair, settings):
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH
    from armada_web.matches.models import Match
    from armada_web.matches.tasks import reap

    settings.ARMADA = settings.ARMADA.with_(match_attempts=2)
    match = make(*pair)
    for attempt in (1, 2):
        assert claim(kind=MATCH, job_id=match.pk) is not None
        Match.objects.filter(pk=match.pk).update(started=timezone.now() - timedelta(hours=2))
        counts = reap(stuck_after_s=60)
        match.refresh_from_db()
        if attempt == 1:
            assert counts["requeued"] == 1 and match.status == "queued"
        else:
            assert counts["given_up"] == 1 and match.status == "failed" and "2 attempts" in match.reason
    Match.objects.filter(pk=match.pk).update(status="queued", queued=timezone.now() - timedelta(hours=2))
    assert reap(stuck_after_s=60)["resent"] == 1


def test_a_late_record_of_a_superseded_attempt_changes_nothing(pair):
    """A worker thought dead finishes after the reaper re-queued its match: its result is dropped."""
    require_docker()
    from armada_web.jobs.leases import claim
    from armada_web.ladder.models import RatingChange
    from armada_web.matches.execution import MATCH, execute
    from armada_web.matches.models import Match

    match = make(*pair)
    first_run = claim(kind=MATCH, job_id=match.pk)
    assert first_run is not None
    Match.objects.filter(pk=match.pk).update(status="queued")  # the reaper gave it to another worker
    second_run = claim(kind=MATCH, job_id=match.pk)
    assert second_run is not None and second_run.attempt == 2
    assert execute(lease=first_run) == "superseded"
    assert RatingChange.objects.count() == 0
    assert execute(lease=second_run) == "finished"
    assert RatingChange.objects.count() == 2


def test_five_faults_in_a_row_bench_a_version_and_a_new_version_plays(make_user, valid_version, settings):
    from armada_web.bots import activation, services
    from armada_web.bots.models import BotVersion
    from armada_web.ladder import ratings
    from armada_web.ladder.matchmaking import ranked_versions
    from armada_web.ladder.models import Rating

    owner = make_user("alice")
    bad = valid_version(owner, "crashy", code=CRASHER)
    good = valid_version(make_user("bob"), "steady")
    for _ in range(settings.ARMADA.bench_faults):
        ratings.apply(match_id=make(bad, good).pk, at=timezone.now(), versions=(bad.pk, good.pk), winner=2,
                      statuses=("crashed", "ok"), details=("exit 3", ""))
    row = Rating.objects.get(version=bad)
    assert row.benched and "5 ranked games" in row.benched_reason and "crashed" in row.benched_reason
    assert bad.pk not in {v.pk for v in ranked_versions("galaxy")}
    newer = services.upload_version(bot=bad.bot, user=owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=newer.pk).update(status="valid")
    activation.refresh_active(bot=bad.bot)
    assert newer.pk in {v.pk for v in ranked_versions("galaxy")}
