"""Matchmaking with rows: the queue is kept at its target depth, never two bots of one owner,
only playable versions (active, valid, not benched), sides alternate, a new version's placement."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db
#: A tick's queries: a few for the tick, about 20 for each match it makes (seeds, neighbours, the
#: match and its seats, both bots' tallies, both ratings' last game; savepoints count too).
PER_TICK, PER_MATCH = 6, 21


@pytest.fixture(autouse=True)
def _unconsumed(settings):
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)


def seats(match_id):
    from armada_web.matches.models import Participant

    return {p.seat: p.version for p in Participant.objects.filter(match_id=match_id).select_related("version__bot")}


def test_the_queue_is_kept_at_its_depth_and_owners_never_meet_themselves(make_user, valid_version):
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.matches.models import Match

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    for owner, names in ((alice, ["aa1", "aa2"]), (bob, ["bb1"]), (carol, ["cc1", "cc2"])):
        for name in names:
            valid_version(owner, name)
    made = fill_queue(workers=2)
    assert len(made) == 4
    assert fill_queue(workers=2) == []  # 4 queued: the depth for 2 workers
    for match_id in made:
        s = seats(match_id)
        assert s[1].bot.owner_id != s[2].bot.owner_id
    Match.objects.filter(pk__in=made[:3]).update(status="finished")
    assert len(fill_queue(workers=2)) == 3
    assert fill_queue(workers=0) == []


def test_two_bots_of_one_shared_team_never_meet(make_user, valid_version):
    """Bots of two members of one team are the team's: the tick never pairs them (`same_side`)."""
    from armada_web.bots.models import Bot
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.teams.services import create_team, join_team

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    team = create_team(user=alice, name="Pair")
    join_team(user=bob, team=team, key=team.join_key)
    mates = [valid_version(alice, "aa1"), valid_version(bob, "bb1")]
    Bot.objects.filter(pk__in=[v.bot_id for v in mates]).update(team=team)
    assert fill_queue(workers=2) == []  # only the two teammates play: no ranked match
    valid_version(carol, "cc1")
    made = fill_queue(workers=2)
    assert made
    for match_id in made:
        s = seats(match_id)
        assert s[1].bot.team_id != s[2].bot.team_id and "cc1" in (s[1].bot.name, s[2].bot.name)


def test_only_playable_versions_are_picked(make_user, valid_version):
    from armada_web.bots import services
    from armada_web.ladder.matchmaking import fill_queue, ranked_versions
    from armada_web.ladder.models import Rating

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    a = valid_version(alice, "alpha")
    b = valid_version(bob, "bravo")
    c = valid_version(carol, "charlie")
    Rating.objects.filter(version=b).update(mu=25, sigma=8, benched=True, benched_reason="faults")
    services.retire(bot=c.bot)
    assert [v.pk for v in ranked_versions("galaxy")] == [a.pk]
    assert fill_queue(workers=1) == []  # one playable bot cannot play


def test_sides_alternate_between_games_of_a_pairing(make_user, valid_version):
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.matches.models import Match

    a = valid_version(make_user("alice"), "alpha")
    b = valid_version(make_user("bob"), "bravo")
    firsts = []
    for _ in range(2):
        made = fill_queue(workers=1)
        assert len(made) == 2
        firsts += [seats(match_id)[1].pk for match_id in made]
        Match.objects.update(status="finished")
    assert firsts in ([a.pk, b.pk] * 2, [b.pk, a.pk] * 2)


def test_a_new_version_starts_from_its_predecessor(make_user, valid_version):
    from armada_web.bots import services
    from armada_web.bots.models import BotVersion
    from armada_web.ladder import ratings
    from armada_web.ladder.logic import ratings as ratings_logic
    from armada_web.ladder.models import Rating

    owner = make_user("alice")
    old = valid_version(owner, "alpha")
    Rating.objects.filter(version=old).update(mu=31.0, sigma=2.0, games=40)
    newer = services.upload_version(bot=old.bot, user=owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=newer.pk).update(status="valid")
    row = ratings.ensure_rating(version=BotVersion.objects.get(pk=newer.pk))
    start = ratings_logic.placement_start(ratings_logic.Skill(31.0, 2.0))
    assert (row.mu, row.sigma, row.games) == (pytest.approx(start.mu), pytest.approx(start.sigma), 0)


def test_the_database_pool_reads_what_the_memory_pool_holds(make_user, valid_version):
    """RatingPool (the tick's reads through the Rating indexes) and matchmaking_logic.MemoryPool (the pure test's)
    choose the same candidates in the same order on the same ladder."""
    import random
    from datetime import UTC, datetime, timedelta

    from armada_web.ladder.logic import matchmaking as matchmaking_logic
    from armada_web.ladder.matchmaking import RatingPool
    from armada_web.ladder.models import Rating

    rng = random.Random(3)
    owners = [make_user(f"owner{i}") for i in range(6)]
    versions = [valid_version(owners[i % 6], f"bot-{i}") for i in range(18)]
    now = datetime(2025, 6, 1, tzinfo=UTC)
    for i, version in enumerate(versions):
        played = None if i % 5 == 0 else now - timedelta(seconds=rng.randrange(1000))
        due = None if played is None else played - timedelta(seconds=rng.randrange(1000))  # less its bonus
        Rating.objects.filter(version=version).update(mu=rng.choice([25.0, rng.uniform(10, 40)]),
                                                      sigma=rng.uniform(1, 8), games=i, last_played=played, due=due)
    Rating.objects.filter(version=versions[7]).update(benched=True)  # never a candidate
    db = RatingPool("galaxy")
    memory = matchmaking_logic.MemoryPool(RatingPool._candidates(db.rows))
    assert db.size() == 17 and len(memory.by_id) == 17
    for count in (1, 6, 16, 40):
        assert [c.id for c in db.longest_waiting(count)] == [c.id for c in memory.longest_waiting(count)]
    for seed in memory.by_id.values():
        assert [c.id for c in db.near(seed, 4)] == [c.id for c in memory.near(seed, 4)]
        assert all(c.owner_id != seed.owner_id for c in db.near(seed, 4))


def test_a_tick_at_10000_playing_versions_reads_a_bounded_set(django_assert_max_num_queries):
    from armada_web.devdata.scale.seed import seed_scale
    from armada_web.ladder.matchmaking import RatingPool, fill_queue

    seed_scale(bots=10_000, matches=0, races=0, replays=0)
    assert RatingPool("galaxy").size() == 10_000
    with django_assert_max_num_queries(PER_TICK + PER_MATCH * 4):  # whatever the ladder's size
        made = fill_queue(workers=2)
    assert len(made) == 4


def test_a_match_made_marks_both_seats_due_their_bonus_earlier(make_user, valid_version):
    """fill_queue keeps each seat's bonus (a provisional version's head) in Rating.due (mark_played),
    the seed order the pool reads."""
    from datetime import UTC, datetime, timedelta

    from armada_web.ladder.logic import matchmaking as matchmaking_logic
    from armada_web.ladder.matchmaking import RatingPool, fill_queue, ranked_match_seconds, unit
    from armada_web.ladder.models import Rating

    a = valid_version(make_user("alice"), "alpha")
    b = valid_version(make_user("bob"), "bravo")
    Rating.objects.filter(version=b).update(games=40, sigma=1.2, last_played=datetime(2025, 5, 1, tzinfo=UTC),
                                            due=datetime(2025, 5, 1, tzinfo=UTC))
    now = datetime(2025, 6, 1, tzinfo=UTC)
    assert len(fill_queue(workers=1, now=now)) == 2  # the only pair, twice (the depth for one worker)
    rows = {r.version_id: r for r in Rating.objects.filter(version_id__in=[a.pk, b.pk])}
    idle_unit = unit(2, 1, ranked_match_seconds("galaxy"))  # (none finished yet: the setting's length)
    # the settled one its bonus; the provisional one its head, less one step for its second match
    head = matchmaking_logic.PROVISIONAL_HEAD - matchmaking_logic.PROVISIONAL_STEP
    for version, ahead in ((a, head * idle_unit), (b, matchmaking_logic.bonus(41, 1.2) * idle_unit)):
        row = rows[version.pk]
        assert row.last_played == now
        assert row.due == pytest.approx(now - timedelta(seconds=ahead), abs=timedelta(milliseconds=1))
    # the new version (few games, provisional) is due earlier: it is the next seed
    assert [c.id for c in RatingPool("galaxy").longest_waiting(2)] == [a.pk, b.pk]


@pytest.mark.parametrize(("kind", "matchmaking_s", "asked"), [("ranked", 5, True), ("challenge", 5, False),
                                                              ("ranked", 0, False)])
def test_a_recorded_ranked_match_asks_for_a_matchmaking_tick(make_user, valid_version, settings, monkeypatch,
                                                             django_capture_on_commit_callbacks, kind,
                                                             matchmaking_s, asked):
    # Matches shorter than beat's tick left the worker idle until the next one (2 matches a worker a
    # tick): the recording asks for a tick once committed, on the periodic queue, dropped when late.
    from django.core.cache import cache

    from armada_web.jobs import queues
    from armada_web.ladder import tasks
    from armada_web.matches.services import create_match
    from tests.support.seasons_helpers import record_result

    settings.ARMADA = settings.ARMADA.with_(matchmaking_s=matchmaking_s)
    cache.delete(tasks.ASKED)
    sent: list[dict] = []
    monkeypatch.setattr(tasks.matchmaking, "apply_async", lambda **options: sent.append(options))
    match = create_match(game="galaxy", first=valid_version(make_user("ann"), "ann-bot"),
                         second=valid_version(make_user("ben"), "ben-bot"), kind=kind)
    with django_capture_on_commit_callbacks(execute=True):
        record_result(match, winner=1)
    assert sent == ([{"kwargs": {"fresh": False}, "queue": queues.default_queue(), "expires": float(matchmaking_s)}]
                    if asked else [])
    if asked:  # a second match ending within the same second: one tick asked for is enough
        again = create_match(game="galaxy", first=match.participants.get(seat=1).version,
                             second=match.participants.get(seat=2).version, kind=kind)
        with django_capture_on_commit_callbacks(execute=True):
            record_result(again, winner=2)
        assert len(sent) == 1


def test_a_tick_while_another_runs_makes_nothing(make_user, valid_version, monkeypatch):
    # Several periodic workers (or beat's tick beside a top-up) never fill the queue at once.
    from django.core.cache import cache

    from armada_web.ladder import tasks

    for name in ("aa1", "bb1", "cc1"):
        valid_version(make_user(name), name)
    monkeypatch.setattr(tasks, "known_workers", lambda: 2)
    assert cache.add(tasks.TICK_LOCK, 1, 60)
    try:
        assert tasks.matchmaking(fresh=False) == 0
    finally:
        cache.delete(tasks.TICK_LOCK)
    assert tasks.matchmaking(fresh=False) > 0
    assert cache.get(tasks.TICK_LOCK) is None  # released


def test_a_new_version_is_on_the_ladder_where_its_predecessor_was_before_its_first_game(make_user, valid_version,
                                                                                       client):
    # The ladder listed only rows with games: a new version vanished from it until its first game
    # (minutes in a surge), though it starts shown where its predecessor was. A new bot still waits.
    from armada_web.bots import services
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.models import Rating
    from armada_web.ladder.recompute import recompute

    owner = make_user("alice")
    old = valid_version(owner, "alpha")
    Rating.objects.filter(version=old).update(mu=31.0, sigma=2.0, games=40)
    valid_version(make_user("bob"), "bravo")  # a new bot: no games, not listed

    def listed() -> dict[tuple[str, int], float]:
        rows = client.get("/api/ladder/galaxy/").json()["results"]
        return {(row["bot"]["name"], row["bot"]["version"]): row["score"] for row in rows}

    assert listed() == {("alpha", 1): pytest.approx(25.0)}
    newer = services.upload_version(bot=old.bot, user=owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=newer.pk).update(status="valid")
    refresh_active(bot=old.bot)
    assert Rating.objects.get(version=newer).games == 0
    assert listed() == {("alpha", 2): pytest.approx(25.0)}  # the new version, at its predecessor's score
    recompute()  # (no ranked match in the history: the predecessor's 40 games are gone, so it starts fresh)
    assert listed() == {}


def test_the_idle_unit_follows_the_measured_length_of_ranked_matches(make_user, valid_version, settings):
    """A trial's demo site played 3-second matches while ARMADA_MATCH_SECONDS said 30: the idle unit
    (the seconds between two games of a bot) was 10 times too long, and every established bot's
    next game was estimated 10 times too late. Measured once a few ranked matches have finished."""
    from datetime import timedelta

    from armada_web.ladder.matchmaking import LENGTH_ENOUGH, ranked_match_seconds, unit
    from armada_web.matches.models import Match
    from tests.pages.data import recorded_match

    settings.ARMADA = settings.ARMADA.with_(match_seconds=30)
    a, b = valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "bravo")
    assert unit(10, 1, ranked_match_seconds("galaxy")) == 10 * 30 / 2  # nothing measured yet: the setting
    for _ in range(LENGTH_ENOUGH):
        match = recorded_match(a, b, winner=1)
        Match.objects.filter(pk=match.pk).update(started=match.finished - timedelta(seconds=3))
    assert unit(10, 1, ranked_match_seconds("galaxy")) == pytest.approx(10 * 3 / 2)
    assert ranked_match_seconds("mothership") == 30  # each game its own
