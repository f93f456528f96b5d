"""What the pages read instead of counting the matches table: each bot's record and head-to-head,
kept in the transactions that make, record and void matches; and the ratings' `playing` flag (the
ladder's and matchmaking's index), kept by every change of a bot's playing version."""

from __future__ import annotations

import itertools

import pytest

from armada.games.base import Result
from armada.referee.match import MatchOutcome, PlayerReport

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _unconsumed(settings):
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)


def finish(match, winner):
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH, record

    lease = claim(kind=MATCH, job_id=match.pk)
    seats = list(match.participants.order_by("seat"))
    players = [PlayerReport(seat, "x", "ok", "") for seat in (1, 2)]
    outcome = MatchOutcome(Result(winner, "turn_limit", 10), players, {"engine_version": "2"})
    assert record(lease=lease, match=match, participants=seats, outcome=outcome,
                  replay_name="r", log_names={1: "a", 2: "b"}) == "finished"


def counts(bot_id):
    from armada_web.matches.queries import record_of

    record = record_of(bot_id)
    return record.matches, record.wins, record.draws, record.losses


def test_tallies_follow_made_recorded_and_voided_matches(make_user, valid_version):
    from armada_web.matches.models import HeadToHead
    from armada_web.matches.services import create_match, void_by_staff

    a = valid_version(make_user("alice"), "alpha")
    b = valid_version(make_user("bob"), "bravo")
    first = create_match(game="galaxy", first=a, second=b)
    assert counts(a.bot_id) == (1, 0, 0, 0) == counts(b.bot_id)
    finish(first, winner=1)
    second = create_match(game="galaxy", first=b, second=a)
    finish(second, winner=None)
    assert counts(a.bot_id) == (2, 1, 1, 0) and counts(b.bot_id) == (2, 0, 1, 1)
    row = HeadToHead.objects.get(bot_id=a.bot_id, opponent_id=b.bot_id)
    assert (row.games, row.wins, row.draws, row.losses, row.opponent_name, row.last_match_id) == (
        2, 1, 1, 0, "bravo", second.pk)
    assert void_by_staff(match=first, reason="a rules bug")
    assert counts(a.bot_id) == (2, 0, 1, 0) and counts(b.bot_id) == (2, 0, 1, 0)
    assert HeadToHead.objects.get(bot_id=b.bot_id, opponent_id=a.bot_id).games == 1
    queued = create_match(game="galaxy", first=a, second=b)
    assert void_by_staff(match=queued, reason="never played")
    assert counts(a.bot_id) == (3, 0, 1, 0)  # a voided match stays one of its matches; no result to take back


def test_cancel_queued_voids_only_the_matches_no_worker_has_taken(make_user, valid_version):
    """A season's or an event's end cancels its waiting matches with one conditional update: a match a
    worker claimed between the caller's read and the update plays on (and a finished one keeps its
    result); only those still queued become void, with the reason, and are counted."""
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH
    from armada_web.matches.models import Match
    from armada_web.matches.services import cancel_queued, create_match

    a = valid_version(make_user("alice"), "alpha")
    b = valid_version(make_user("bob"), "bravo")
    waiting, taken, done = (create_match(game="galaxy", first=a, second=b) for _ in range(3))
    assert claim(kind=MATCH, job_id=taken.pk) is not None  # a worker took it meanwhile
    finish(done, winner=1)
    ids = [waiting.pk, taken.pk, done.pk]
    assert cancel_queued(match_ids=ids, reason="cancelled: the event ended before it was played") == 1
    rows = {m.pk: (m.status, m.reason) for m in Match.objects.filter(pk__in=ids)}
    assert rows == {waiting.pk: ("void", "cancelled: the event ended before it was played"),
                    taken.pk: ("running", ""), done.pk: ("finished", "")}
    assert Match.objects.get(pk=waiting.pk).finished is not None
    assert counts(a.bot_id) == (3, 1, 0, 0)  # the finished match's win stands
    assert cancel_queued(match_ids=[], reason="nothing") == 0


def test_the_playing_flag_follows_every_change_of_the_playing_version(make_user, valid_version):
    from armada_web.bots import services
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion
    from armada_web.ladder import playing
    from armada_web.ladder.models import Rating

    owner = make_user("alice")
    first = valid_version(owner, "alpha")

    def flags():
        return dict(Rating.objects.filter(version__bot_id=first.bot_id).values_list("version_id", "playing"))

    assert flags() == {first.pk: True}  # a playing version has its rating from the start
    newer = services.upload_version(bot=first.bot, user=owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=newer.pk).update(status="valid")
    refresh_active(bot=first.bot)
    assert flags() == {first.pk: False, newer.pk: True}
    services.set_active(bot=first.bot, user=owner, version_id=first.pk)  # the owner rolls back
    assert flags() == {first.pk: True, newer.pk: False}
    services.set_disabled(bot=first.bot, disabled=True, reason="staff")
    assert flags() == {first.pk: False, newer.pk: False}
    services.set_disabled(bot=first.bot, disabled=False)
    assert flags()[first.pk] is True
    assert services.revalidate(version=BotVersion.objects.get(pk=first.pk))  # pending: it does not play
    assert flags()[first.pk] is False
    BotVersion.objects.filter(pk=first.pk).update(status="valid")
    refresh_active(bot=first.bot)
    assert flags()[first.pk] is True
    Rating.objects.filter(version_id=first.pk).update(playing=False)  # a change made some other way
    assert playing.repair() == 1 and flags()[first.pk] is True
    services.retire(bot=first.bot)
    assert flags() == {first.pk: False, newer.pk: False}
    assert playing.repair() == 0


def test_the_rating_chart_of_a_busy_bot_is_a_few_hundred_points_read_through_the_index(
        make_user, valid_version, django_assert_max_num_queries):
    from datetime import UTC, datetime, timedelta

    from armada_web.bots import services
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.models import Rating, RatingChange
    from armada_web.ladder.queries import CHART_POINTS, chart_points
    from armada_web.matches.models import Match

    owner = make_user("alice")
    old = valid_version(owner, "alpha")
    new = services.upload_version(bot=old.bot, user=owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=new.pk).update(status="valid")
    games = {old.pk: 4000, new.pk: 2000}
    start = datetime(2025, 1, 1, tzinfo=UTC)
    for version_id, count in games.items():
        Rating.objects.update_or_create(version_id=version_id, defaults={
            "game": "galaxy", "mu": 30, "sigma": 1, "games": count})
    matches = Match.objects.bulk_create([Match(game="galaxy", seed=n) for n in range(6000)], batch_size=1000)
    changes = []
    for i, m in enumerate(matches):
        version_id, n = (old.pk, i + 1) if i < 4000 else (new.pk, i - 3999)
        changes.append(RatingChange(version_id=version_id, match=m, mu=i + 1, sigma=0,
                                    at=start + timedelta(minutes=i), games=n))
    RatingChange.objects.bulk_create(changes, batch_size=1000)
    with django_assert_max_num_queries(2):
        points, total = chart_points(old.bot_id)
    assert total == 6000 and CHART_POINTS - 5 <= len(points) <= CHART_POINTS + 4
    scores = [p.score for p in points]
    assert scores == sorted(scores) and scores[0] == 1 and scores[-1] == 6000  # first and latest game kept
    assert {p.version for p in points} == {1, 2}
    assert all(p.match_id == matches[int(p.score) - 1].pk for p in points)  # each links its match
    assert 4000 in scores and 4001 in scores  # each version's first and last game
    gaps = [b - a for a, b in itertools.pairwise(scores)]
    assert max(gaps) <= 2 * 6000 / CHART_POINTS  # evenly spread


@pytest.mark.parametrize("kind", ["ranked", "challenge"])
def test_a_bot_deleted_while_its_match_plays_voids_it_and_counts_nothing(make_user, valid_version, kind):
    """Its owner deletes a bot (its versions go) while a worker plays its match (the seats were read
    before the game): the match is void with a reason that says so, the owner's doing and not the
    platform's, and nothing is counted: no rating change, no result in the other bot's record
    (before: a DoesNotExist or a foreign key error, logged as the platform failing; issue 29's trial)."""
    from armada_web.bots.services import delete_bot
    from armada_web.jobs.leases import claim
    from armada_web.ladder.models import Rating, RatingChange
    from armada_web.matches.execution import MATCH, record
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    first = valid_version(make_user("alice"), "alpha")
    second = valid_version(make_user("bob"), "bravo")
    match = create_match(game="galaxy", first=first, second=second, kind=kind, seed=7)
    lease = claim(kind=MATCH, job_id=match.pk)
    seats = list(match.participants.order_by("seat"))
    delete_bot(bot=second.bot, user=second.bot.owner)
    players = [PlayerReport(seat, "x", "ok", "") for seat in (1, 2)]
    outcome = MatchOutcome(Result(1, "turn_limit", 10), players, {"engine_version": "2"})
    assert record(lease=lease, match=match, participants=seats, outcome=outcome,
                  replay_name="r", log_names={1: "a", 2: "b"}) == "void"
    match = Match.objects.get(pk=match.pk)
    assert match.status == "void"
    assert match.reason == "void: seat 2's bot was deleted during the match (no result, no rating change)"
    assert not RatingChange.objects.exists() and not Rating.objects.filter(games__gt=0).exists()
    assert counts(first.bot_id) == (1, 0, 0, 0)
    assert all(p.result == "" for p in match.participants.all())


def test_a_recording_retried_after_its_bot_was_deleted_stays_finished(make_user, valid_version):
    """The commit of a recording succeeded but its answer was lost; the owner deletes a seat's bot
    before the retry: the retry says FINISHED (so `execute` keeps the replay and logs it saved),
    not void (which then deleted the files of a finished match; the review of issue 29's change)."""
    from armada_web.bots.services import delete_bot
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH, record
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    first = valid_version(make_user("alice"), "alpha")
    second = valid_version(make_user("bob"), "bravo")
    match = create_match(game="galaxy", first=first, second=second, kind="ranked", seed=7)
    lease = claim(kind=MATCH, job_id=match.pk)
    seats = list(match.participants.order_by("seat"))
    players = [PlayerReport(seat, "x", "ok", "") for seat in (1, 2)]
    outcome = MatchOutcome(Result(1, "turn_limit", 10), players, {"engine_version": "2"})
    assert record(lease=lease, match=match, participants=seats, outcome=outcome,
                  replay_name="r", log_names={1: "a", 2: "b"}) == "finished"
    delete_bot(bot=second.bot, user=second.bot.owner)
    assert record(lease=lease, match=match, participants=seats, outcome=outcome,
                  replay_name="r", log_names={1: "a", 2: "b"}) == "finished"  # the retry
    match = Match.objects.get(pk=match.pk)
    assert match.status == "finished" and match.replay.name == "r" and match.reason == ""


def test_a_bot_deleted_before_its_match_plays_voids_it_saying_so(make_user, valid_version):
    from armada_web.bots.services import delete_bot
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH, execute
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    first = valid_version(make_user("alice"), "alpha")
    second = valid_version(make_user("bob"), "bravo")
    match = create_match(game="galaxy", first=first, second=second, seed=7)
    delete_bot(bot=first.bot, user=first.bot.owner)
    assert execute(lease=claim(kind=MATCH, job_id=match.pk)) == "void"
    assert Match.objects.get(pk=match.pk).reason == ("void: seat 1's bot was deleted before the match was played "
                                                     "(no result, no rating change)")
