"""Private events in the database, through the API: create (201, slug and invite), enter with the
invite (one bot per member; every bad input of the issue refused with its status and nothing
changed), start, a round robin's games sent as the workers' share allows and its table (3 a win,
1 a draw), finished when all are played and frozen after; a ladder event paired by the ladder's
own pairing until its end; limits per user with 429, also for parallel requests; a private event
is a 404 for anyone not in it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.seasons_helpers import queued, record_result
from tests.support.threads import at_once, locked_then

pytestmark = pytest.mark.django_db


@pytest.fixture
def members(make_user, valid_version, api):
    """The owner and two members, each with a playing Galaxy bot, and an API client each."""
    people = []
    for name in ("olga", "mia", "nils"):
        user = make_user(name)
        version = valid_version(user, f"{name}-bot")
        people.append((api(user), version))
    return people


def create(client, **body):
    body = {"name": "Friday <b>club</b>", "game": "galaxy", "format": "round_robin", "games_per_pair": 2, **body}
    return client.post("/api/events/", body, format="json")


def enter(client, slug, version, invite):
    bot = version.bot_id if hasattr(version, "bot_id") else version
    return client.post(f"/api/events/{slug}/entries/", {"bot": bot, "invite": invite}, format="json")


def test_a_round_robin_of_three_members_from_invite_to_frozen_table(members, armada):
    from armada_web.events import matchmaking
    from armada_web.ladder.models import RatingChange

    (owner, v0), (mia, v1), (nils, v2) = members
    made = create(owner)
    assert made.status_code == 201, made.json()
    event = made.json()
    assert event["slug"].startswith("friday-club-") and event["invite"] and event["state"] == "open"
    slug, invite = event["slug"], event["invite"]
    assert enter(owner, slug, v0, None).status_code == 201  # the owner needs no invite
    for client, version in ((mia, v1), (nils, v2)):
        answer = enter(client, slug, version, invite)
        assert answer.status_code == 201, answer.json()
    assert mia.get(f"/api/events/{slug}/").json()["entries"] == 3
    assert "invite" not in mia.get(f"/api/events/{slug}/").json()  # only its owner sees the code
    started = owner.post(f"/api/events/{slug}/start/")
    assert started.status_code == 200 and started.json()["state"] == "running"
    assert started.json()["games_total"] == 6  # 3 pairs x 2 games
    matchmaking.fill(workers=1)
    assert len(queued("event")) == 2  # target_depth(1 worker): the rest wait in the database
    wins = {v0.pk: 0, v1.pk: 0, v2.pk: 0}
    for _ in range(10):
        waiting = queued("event")
        if not waiting:
            break
        for match in waiting:
            seats = {p.seat: p.version_id for p in match.participants.all()}
            winner = 1 if seats[1] == v0.pk else 2 if seats[2] == v0.pk else None  # olga wins, the rest draw
            record_result(match, winner)
            for seat, version_id in seats.items():
                wins[version_id] += winner == seat
        matchmaking.play_on(event_id=_event(slug).pk)
    data = owner.get(f"/api/events/{slug}/").json()
    assert data["state"] == "finished"
    table = [(r["bot"]["name"], r["played"], r["wins"], r["draws"], r["losses"], r["points"]) for r in data["table"]]
    assert table[0] == ("olga-bot", 4, 4, 0, 0, 12)
    assert sorted(table[1:]) == [("mia-bot", 4, 0, 2, 2, 2), ("nils-bot", 4, 0, 2, 2, 2)]
    assert [r["place"] for r in data["table"]] == [1, 2, 3]
    assert RatingChange.objects.count() == 0  # unrated for the ladder
    assert set(data["table"][0]) >= {"place", "bot", "owner", "played", "wins", "draws", "losses", "points"}


def _event(slug):
    from armada_web.events.models import Event

    return Event.objects.get(slug=slug)


def _one_game_running(members):
    """A started round robin of the first two members, one game a pair: its slug and its queued match."""
    from armada_web.events import matchmaking

    (owner, v0), (mia, v1), _ = members
    slug = create(owner, games_per_pair=1).json()["slug"]
    enter(owner, slug, v0, None)
    enter(mia, slug, v1, _event(slug).invite)
    owner.post(f"/api/events/{slug}/start/")
    matchmaking.fill(workers=1)
    return slug, queued("event")[0]


def test_a_finished_events_table_is_frozen(members):
    from armada_web.events import services
    from armada_web.events.models import EventEntry
    from armada_web.matches.services import create_match

    (_owner, v0), (_mia, v1), _ = members
    slug, match = _one_game_running(members)
    services.finish(event=_event(slug))
    before = list(EventEntry.objects.values_list("games", "points", "place"))
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH

    assert claim(kind=MATCH, job_id=match.pk) is None  # cancelled when the event ended
    late = create_match(game="galaxy", first=v0, second=v1, kind="event")
    record_result(late, 1)  # a match of no game of it
    assert list(EventEntry.objects.values_list("games", "points", "place")) == before


def test_a_game_recorded_while_its_event_finishes_leaves_the_frozen_table_alone(members, monkeypatch):
    """The recording reads the event's state with the game's row, then waits for the entries' rows;
    an event that finished meanwhile (beat at its `ends`, its places written from the table as it
    was) must not then see a game move two entries' lines: their points would disagree with the
    places frozen a moment before."""
    from armada_web.events import services
    from armada_web.events.models import EventEntry, EventGame

    slug, match = _one_game_running(members)
    locking = EventEntry.objects.select_for_update

    def finish_first(*args, **kwargs):  # the event finishes while the recording waits for the entries
        monkeypatch.setattr(EventEntry.objects, "select_for_update", locking)
        assert services.finish(event=_event(slug))
        return locking(*args, **kwargs)

    monkeypatch.setattr(EventEntry.objects, "select_for_update", finish_first)
    before = sorted(EventEntry.objects.values_list("games", "points"))
    assert record_result(match, 1) == "finished"  # the match is played; the event counts it for nothing
    assert sorted(EventEntry.objects.values_list("games", "points")) == before == [(0, 0), (0, 0)]
    assert not EventGame.objects.get(match=match).counted


@pytest.mark.django_db(transaction=True)
def test_a_game_recorded_as_its_event_finishes_on_another_connection_neither_deadlocks(members):
    """Two real transactions: the recording holds the game's row and is about to lock the entries
    when beat finishes the event. `finish` takes the rows in the recording's order (the games,
    then the entries): in the other order each waited for the other, and PostgreSQL aborted one
    ("deadlock detected")."""
    from django.db import connection

    from armada_web.events import services
    from armada_web.events.models import EventEntry, EventGame
    from tests.support.services import missing

    if connection.vendor != "postgresql":
        missing("row locks need PostgreSQL (set DATABASE_URL; CI does)")
    slug, match = _one_game_running(members)
    outcomes = locked_then(lambda: record_result(match, 1), lambda: services.finish(event=_event(slug)),
                           manager=EventEntry.objects, method="select_for_update")
    assert outcomes == [("ok", "finished"), ("ok", True)]
    counted = EventGame.objects.get(match=match).counted
    table = sorted(EventEntry.objects.values_list("place", "games", "points"))
    # The game is in the frozen places, or counts for nothing: never points the places left out.
    assert table == ([(1, 1, 3), (2, 1, 0)] if counted else [(1, 0, 0), (2, 0, 0)])


@pytest.mark.parametrize(("body", "message"), [
    ({"name": ""}, "needs a name"),
    ({"name": "x" * 101}, "at most 100"),
    ({"name": "Friday \u202ebulc"}, "direction marks"),  # a right-to-left override turns the text after it
    ({"name": "Friday \u2067club"}, "direction marks"),
    ({"name": "Friday\u200f club"}, "direction marks"),
    ({"name": "Friday c\u0336\u0336\u0336lub"}, "has stacked accent marks (3 on one letter"),  # "Zalgo"
    ({"game": "chess"}, "unknown game"),
    ({"format": "swiss"}, "format must be one of"),
    ({"games_per_pair": 0}, "games_per_pair must be a whole number from 1 to 10"),
    ({"games_per_pair": "two"}, "games_per_pair must be a whole number"),
    ({"format": "ladder", "games_per_pair": None}, "needs its end"),
    ({"format": "ladder", "games_per_pair": 3, "ends": "2099-01-01T00:00:00Z"}, "games_per_pair is for a round robin"),
    ({"ends": "not a date"}, "ISO 8601"),
    ({"ends": "2001-01-01T00:00:00Z"}, "ends after it starts"),
    ({"public": "yes"}, "public must be true or false"),
    ({"max_entrants": 1}, "max_entrants must be a whole number from 2 to 32"),
])
def test_bad_events_are_refused(members, body, message):
    from armada_web.events.models import Event

    answer = create(members[0][0], **body)
    assert answer.status_code == 400 and message in answer.json()["detail"], answer.json()
    assert not Event.objects.exists()


def test_bad_entries_are_refused_with_their_status_and_change_nothing(members, make_user, valid_version, api,
                                                                      armada):
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.events.models import EventEntry

    (owner, v0), (mia, v1), (nils, v2) = members
    slug = create(owner, max_entrants=2).json()["slug"]
    invite = _event(slug).invite
    outsider = api(make_user("otto"))
    assert enter(mia, slug, v1, "wrong").status_code == 404  # a private event: as if it did not exist
    assert mia.get(f"/api/events/{slug}/").status_code == 404
    assert mia.get(f"/api/events/{slug}/?invite={invite}").status_code == 200  # the link shows it
    assert enter(mia, slug, v0, invite).status_code == 403  # not her bot
    assert enter(mia, slug, "x", invite).status_code == 400
    assert enter(mia, slug, 0, invite).status_code == 400  # not an id (an API trial: "no bot with id 0", a 404)
    unknown = enter(mia, slug, 2**62 + 1, invite)  # an id of 19 digits: no such bot (it was "not an integer")
    assert unknown.status_code == 404 and unknown.json()["detail"] == f"no bot with id {2**62 + 1}"
    mothership = valid_version(mia.user, "mia-race", game="mothership", starter="balanced")
    answer = enter(mia, slug, mothership, invite)
    assert answer.status_code == 409 and "plays Mothership Down" in answer.json()["detail"]  # the bot's state
    pending = valid_version(mia.user, "mia-new")
    BotVersion.objects.filter(pk=pending.pk).update(status="invalid")
    answer = enter(mia, slug, pending, invite)
    assert answer.status_code == 409 and "no valid version" in answer.json()["detail"]  # no valid version
    retired = valid_version(mia.user, "mia-old")
    Bot.objects.filter(pk=retired.bot_id).update(retired=timezone.now())
    answer = enter(mia, slug, retired, invite)  # no upload would help (an organiser's trial was told to upload)
    assert answer.status_code == 409 and answer.json()["detail"] == "mia-old was retired: it enters nothing"
    assert enter(mia, slug, v1, invite).status_code == 201
    second = valid_version(mia.user, "mia-two")
    answer = enter(mia, slug, second, invite)
    assert answer.status_code == 409 and "one bot per member" in answer.json()["detail"]
    assert enter(owner, slug, v0, None).status_code == 201
    answer = enter(nils, slug, v2, invite)  # the invite used past the limit
    assert answer.status_code == 409 and "full" in answer.json()["detail"]
    assert outsider.post(f"/api/events/{slug}/start/").status_code == 404
    assert mia.post(f"/api/events/{slug}/start/").status_code == 403  # a member, not its owner
    assert EventEntry.objects.count() == 2


def test_entering_after_the_start_or_the_end_and_starting_alone_are_refused(members):
    (owner, v0), (mia, v1), (nils, v2) = members
    public = create(owner, public=True).json()["slug"]
    assert enter(nils, public, v2, "wrong").status_code == 403  # public: it exists, the code is wrong
    assert nils.get(f"/api/events/{public}/").status_code == 200
    enter(owner, public, v0, None)
    answer = owner.post(f"/api/events/{public}/start/")
    assert answer.status_code == 409 and "at least 2 entries" in answer.json()["detail"]
    enter(mia, public, v1, _event(public).invite)
    assert owner.post(f"/api/events/{public}/start/").status_code == 200
    answer = enter(nils, public, v2, _event(public).invite)
    assert answer.status_code == 409 and "running" in answer.json()["detail"]
    ended = create(owner, ends=(timezone.now() + timedelta(seconds=1)).isoformat()).json()["slug"]
    from armada_web.events.models import Event

    Event.objects.filter(slug=ended).update(ends=timezone.now() - timedelta(seconds=1))
    answer = enter(nils, ended, v2, _event(ended).invite)
    assert answer.status_code == 409 and "has ended" in answer.json()["detail"]


def test_limits_per_user_answer_429(members, armada):
    armada(events_per_day=2, event_entries_per_day=1)
    (owner, _v0), (mia, v1), _ = members
    first = create(owner, name="Club")
    again = create(owner, name=" Club ")  # the form sent twice: refused, not a second event counted
    assert again.status_code == 409 and f"an open event named 'Club' already ({first.json()['slug']})" in \
        again.json()["detail"]
    assert first.status_code == 201 and create(owner, name="Cup").status_code == 201
    answer = create(owner, name="Open")
    assert answer.status_code == 429
    assert answer.json()["detail"] == "event limit reached: 2 events per day; try again in about 24 hours"
    assert 86000 < int(answer["Retry-After"]) <= 86400  # when the oldest use leaves the day (an API trial)
    first, second = (e.slug for e in _events_of("olga"))
    assert enter(mia, first, v1, _event(first).invite).status_code == 201
    answer = enter(mia, second, v1, _event(second).invite)
    assert answer.status_code == 429 and "1 event entries per day" in answer.json()["detail"]
    _events_of("olga")[0].delete()  # staff delete an open (spam) event: its use of the day stays counted
    assert create(owner, name="Open").status_code == 429


def test_a_days_wait_is_said_in_hours():
    from armada_web.accounts.limits import in_words

    assert [in_words(s) for s in (0.2, 59, 60, 89 * 60, 90 * 60, 23.6 * 3600)] == [
        "1 s", "59 s", "about 1 minute", "about 89 minutes", "about 2 hours", "about 24 hours"]


def test_two_open_events_of_one_owner_never_look_alike(members):
    """An organiser's trial: a name with a zero-width space made a second open "zerowidth", and a rename
    gave an open event another open event's name; creating one with that name is refused."""
    (owner, _v0), _, _ = members
    assert create(owner, name="zerowidth").status_code == 201
    hidden = create(owner, name="zero\u200bwidth")
    assert hidden.status_code == 400 and "may not hold invisible characters" in hidden.json()["detail"]
    other = create(owner, name="Cup").json()["slug"]
    renamed = owner.patch(f"/api/events/{other}/", {"name": "zerowidth"}, format="json")
    assert renamed.status_code == 409 and "an open event named 'zerowidth' already" in renamed.json()["detail"]
    assert _event(other).name == "Cup"  # nothing changed
    assert owner.patch(f"/api/events/{other}/", {"name": "Cup 2"}, format="json").status_code == 200
    # (a review: other invisible characters, another case, another way to write the same letters)
    for alike in ("zero\ufe0fwidth", "zero\u034fwidth", "ZeroWidth"):
        answer = create(owner, name=alike)
        assert answer.status_code in (400, 409), alike
    assert create(owner, name="Cafe\u0301").status_code == 201
    again = create(owner, name="Caf\u00e9")
    assert again.status_code == 409 and "an open event named 'Caf\u00e9' already" in again.json()["detail"]


def _events_of(username):
    from armada_web.events.models import Event

    return list(Event.objects.filter(owner__username=username).order_by("id"))


@pytest.mark.django_db(transaction=True)
def test_parallel_requests_cannot_pass_the_limits(make_user, valid_version, api, armada):
    armada(events_per_day=3)
    owner = api(make_user("olga"))
    codes = at_once([lambda n=n: create(owner, name=f"Club {n}").status_code for n in range(8)])
    assert sorted(codes) == [201] * 3 + [429] * 5
    slug = _events_of("olga")[0].slug
    from armada_web.events.models import Event, EventEntry

    Event.objects.filter(slug=slug).update(max_entrants=3)
    invite = _event(slug).invite
    people = [(api(make_user(f"p{n}")),) for n in range(6)]
    versions = [valid_version(client.user, f"p{n}-bot") for n, (client,) in enumerate(people)]
    codes = at_once([lambda c=c, v=v: enter(c, slug, v, invite).status_code
                       for (c,), v in zip(people, versions, strict=True)])
    assert sorted(codes) == [201] * 3 + [409] * 3  # the invite past the limit, however fast
    assert EventEntry.objects.filter(event__slug=slug).count() == 3


def test_a_ladder_event_is_paired_by_the_ladders_pairing_until_it_ends(members, client):
    from armada_web.events import matchmaking, periodic
    from armada_web.events.models import EventEntry

    (owner, v0), (mia, v1), (nils, v2) = members
    ends = timezone.now() + timedelta(hours=1)
    slug = create(owner, format="ladder", games_per_pair=None, ends=ends.isoformat()).json()["slug"]
    invite = _event(slug).invite
    for client, version in ((owner, v0), (mia, v1), (nils, v2)):
        enter(client, slug, version, invite)
    started = owner.post(f"/api/events/{slug}/start/").json()
    assert started["games_total"] is None  # no plan: a ladder plays until it ends (not "0 games")
    for _ in range(6):
        matchmaking.fill(workers=4)
        waiting = queued("event")
        assert len(waiting) == 1  # at most one game per two entries in flight
        record_result(waiting[0], 1)
    played = sorted(EventEntry.objects.values_list("games", flat=True))
    assert sum(played) == 12 and played[0] >= 3  # everyone plays: the idle term
    assert periodic.tick(now=ends + timedelta(seconds=1), workers=1)["finished"] == [slug]
    assert _event(slug).state == "finished"
    # its page counts the games as a round robin's does, without a plan (an organiser's trial saw no count)
    client.force_login(owner.user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert '<p id="event-progress">6 games played' in page, page


def test_a_ladder_ended_early_says_when_it_ended_and_what_was_planned(members, client):
    """An organiser's trial: a ladder ended with "End the event now" still showed only its planned end."""
    (owner, v0), (mia, v1), _ = members
    ends = timezone.now() + timedelta(hours=1)
    slug = create(owner, format="ladder", games_per_pair=None, ends=ends.isoformat()).json()["slug"]
    enter(owner, slug, v0, None)
    enter(mia, slug, v1, _event(slug).invite)
    owner.post(f"/api/events/{slug}/start/")
    assert owner.post(f"/api/events/{slug}/end/").status_code == 200
    client.force_login(owner.user)
    page = client.get(f"/events/{slug}/").content.decode()
    finished = _event(slug).finished
    assert f" · ended {finished:%Y-%m-%d %H:%M} UTC" in page
    assert f"(planned to end {ends:%Y-%m-%d %H:%M} UTC)" in page and " · ends " not in page


def test_events_share_the_free_workers_and_yield_to_the_finals(members, monkeypatch):
    from armada_web.events import matchmaking
    from armada_web.matches import capacity

    (owner, v0), (mia, v1), _ = members
    slugs = []
    for _ in range(2):
        slug = create(owner, games_per_pair=4).json()["slug"]
        enter(owner, slug, v0, None)
        enter(mia, slug, v1, _event(slug).invite)
        owner.post(f"/api/events/{slug}/start/")
        slugs.append(slug)
    assert matchmaking.fill(workers=3) == 6  # target_depth(3 workers)
    per_event = sorted(_event(s).games.filter(match__isnull=False).count() for s in slugs)
    assert per_event == [3, 3]  # one event after the other: a large event cannot hold up another
    assert matchmaking.fill(workers=3) == 0  # full
    monkeypatch.setitem(capacity._claims, "test-finals", lambda workers: workers)  # finals take them all
    assert capacity.free(3) == 0
    for match in queued("event"):
        record_result(match, 1)
    assert matchmaking.fill(workers=3) == 0  # the events wait for the finals
    monkeypatch.setitem(capacity._claims, "test-finals", lambda workers: 1)  # the finals need one
    assert capacity.free(3) == 2
    assert matchmaking.fill(workers=3) == 2  # the two games left, within target_depth(2 free workers)


def test_two_fills_at_once_hold_no_more_than_the_share(members, monkeypatch):
    """An exactly-once review: two match workers recording event games at one moment each filled
    (`play_on`), each counting the room once before sending, so together they sent twice the share.
    Here a second worker's fill runs while the first is between two sends."""
    from armada_web.events import matchmaking

    (owner, v0), (mia, v1), _ = members
    slug = create(owner, games_per_pair=6).json()["slug"]
    enter(owner, slug, v0, None)
    enter(mia, slug, v1, _event(slug).invite)
    owner.post(f"/api/events/{slug}/start/")
    monkeypatch.setattr(matchmaking.matchmaking_logic, "target_depth", lambda free: 4)
    real, others = matchmaking._give_one, []

    def give_one(event_id, now):
        given = real(event_id, now)
        if not others:  # the other worker's fill, after this one's first send (its own sends plain)
            others.append(None)
            others[0] = matchmaking.fill(workers=2)
        return given

    monkeypatch.setattr(matchmaking, "_give_one", give_one)
    sent = matchmaking.fill(workers=2)
    assert (sent, others, matchmaking.in_flight()) == (1, [3], 4)  # not 1 + 3 + 3 more


def test_an_event_never_sent_a_game_goes_before_one_that_was(members, monkeypatch):
    """A review: PostgreSQL sorts a NULL `last_sent` last, SQLite first, so on PostgreSQL a
    just-started event waited behind those that had been sent games."""
    from datetime import timedelta

    from django.utils import timezone

    from armada_web.events import matchmaking
    from armada_web.events.models import Event

    (owner, v0), (mia, v1), _ = members
    slugs = []
    for _ in range(2):
        slug = create(owner).json()["slug"]
        enter(owner, slug, v0, None)
        enter(mia, slug, v1, _event(slug).invite)
        owner.post(f"/api/events/{slug}/start/")
        slugs.append(slug)
    old, new = slugs
    Event.objects.filter(slug=old).update(last_sent=timezone.now() - timedelta(hours=1))
    Event.objects.filter(slug=new).update(last_sent=None)
    monkeypatch.setattr(matchmaking.matchmaking_logic, "target_depth", lambda free: 1)
    assert matchmaking.fill(workers=1) == 1
    assert _event(new).games.filter(match__isnull=False).count() == 1
    assert _event(old).games.filter(match__isnull=False).count() == 0


def test_a_private_event_is_a_404_to_anyone_not_in_it(members, client):
    (owner, _v0), (mia, _v1), _ = members
    slug = create(owner).json()["slug"]
    assert client.get(f"/api/events/{slug}/").status_code == 404
    assert client.get(f"/events/{slug}/").status_code == 404
    assert owner.get(f"/api/events/{slug}/").status_code == 200
    assert mia.get("/api/events/").json()["count"] == 0
    assert owner.get("/api/events/").json()["count"] == 1


def test_staff_voiding_a_counted_game_takes_it_out_of_a_running_table_and_it_is_played_again(members, admin_client):
    """A running round robin of three: two games played (olga wins hers, any other is a draw); staff
    void one of olga's. The table is counted again without it (her 3 points and game gone, the
    other game's kept), the game is no longer counted, and the event's matchmaking sends it again.
    Once the event has finished, a void leaves the frozen table."""
    from armada_web.events import matchmaking, services
    from armada_web.events.models import EventEntry, EventGame
    from armada_web.matches.models import Match
    from armada_web.matches.services import void_by_staff

    (owner, v0), (mia, v1), (nils, v2) = members
    slug = create(owner, games_per_pair=1).json()["slug"]
    enter(owner, slug, v0, None)
    for client, version in ((mia, v1), (nils, v2)):
        enter(client, slug, version, _event(slug).invite)
    owner.post(f"/api/events/{slug}/start/")
    matchmaking.fill(workers=2)
    expected = {v0.pk: [0, 0], v1.pk: [0, 0], v2.pk: [0, 0]}  # version: [games, points] without the voided game
    matches = queued("event")[:2]
    voided = next(m for m in matches if v0.pk in {p.version_id for p in m.participants.all()})
    for match in matches:
        seats = {p.seat: p.version_id for p in match.participants.all()}
        winner = 1 if seats[1] == v0.pk else 2 if seats[2] == v0.pk else None
        record_result(match, winner)
        for seat, version_id in seats.items():
            if match.pk != voided.pk:
                expected[version_id][0] += 1
                expected[version_id][1] += 3 if winner == seat else 1 if winner is None else 0
    table = lambda: {v: [g, p] for v, g, p in EventEntry.objects.values_list("version_id", "games", "points")}  # noqa: E731
    assert table() != expected  # the voided game counts before
    assert void_by_staff(match=Match.objects.get(pk=voided.pk), reason="a platform fault")
    assert table() == expected
    game = EventGame.objects.get(match_id=voided.pk)
    assert not game.counted
    matchmaking.play_on(event_id=_event(slug).pk)
    game.refresh_from_db()
    assert game.match_id != voided.pk and game.match.status == "queued"  # sent again

    services.finish(event=_event(slug))
    frozen = table()
    other = next(m for m in matches if m.pk != voided.pk)
    assert void_by_staff(match=Match.objects.get(pk=other.pk), reason="late")
    assert table() == frozen
    # Their pages say which still counts (a review: both read "counts for nothing").
    assert "Void since, but it still counts in event Friday &lt;b&gt;club&lt;/b&gt;&#x27;s final table." in (
        admin_client.get(f"/matches/{other.pk}/").content.decode())
    assert "Void: it counts for nothing (as played: " in admin_client.get(f"/matches/{voided.pk}/").content.decode()


def test_the_event_page_says_why_it_waits(members, client, monkeypatch):
    """An organiser's trial: a scheduled event whose start time passed with one entry stayed open
    with no word why (the reason was in the worker's log), and a running one showed "0 of 2 games
    played" while a season's finals took every worker."""
    from armada_web.events.models import Event
    from armada_web.matches import capacity

    (owner, v0), (mia, v1), _ = members
    slug = create(owner, starts=(timezone.now() + timedelta(seconds=5)).isoformat()).json()["slug"]
    enter(owner, slug, v0, None)
    Event.objects.filter(slug=slug).update(starts=timezone.now() - timedelta(minutes=1))
    client.force_login(owner.user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert "members enter a bot with it; up to" in page
    assert ("Its start time has passed with 1 entry: an event needs two, so it starts as soon as a second bot "
            "enters.") in page
    enter(mia, slug, v1, _event(slug).invite)
    assert owner.post(f"/api/events/{slug}/start/").status_code == 200
    running = client.get(f"/events/{slug}/").content.decode()
    assert 'id="event-waiting"' not in running
    assert "it takes no more entries: whoever holds it sees this page" in running  # not "members enter with it"
    monkeypatch.setitem(capacity._claims, "test-finals", lambda workers: workers)  # finals take them all
    page = client.get(f"/events/{slug}/").content.decode()
    assert "Its games wait for a worker: a season&#x27;s finals take every worker now." in page


@pytest.mark.django_db(transaction=True)
def test_an_entry_waiting_while_the_link_is_renewed_is_refused(members):
    """The review: an entry that passed the invite check with the old code, then waited for the
    event's row while its owner renewed the code, was made anyway. It is judged again under the lock."""
    from django.db import connection

    from armada_web.events import services
    from armada_web.events.models import Event, EventEntry
    from tests.support.services import missing

    if connection.vendor != "postgresql":
        missing("row locks need PostgreSQL (set DATABASE_URL; CI does)")
    (owner, _v0), (mia, v1), _ = members
    slug = create(owner).json()["slug"]
    old = _event(slug).invite
    outcomes = locked_then(
        lambda: services.enter(user=mia.user, event=_event(slug), bot_id=v1.bot_id, invite=old),
        lambda: services.renew_invite(user=owner.user, event=_event(slug)),
        manager=Event.objects, method="select_for_update")
    (first, error), (second, _renewed) = outcomes
    assert second == "ok" and first == "error" and "no such event" in str(error)  # private: as if none
    assert not EventEntry.objects.exists() and _event(slug).invite != old


@pytest.mark.django_db(transaction=True)
def test_an_entry_beside_its_events_owner_deleting_their_account_does_not_deadlock(make_user):
    """A review: `enter` locked the event's row, then the bot's team's; an account's deletion locks
    its teams (its memberships end), then its events' rows (their owner becomes null). Entering a
    team's bot into an event of a member of that team while they deleted their account deadlocked."""
    from django.db import connection

    from armada.botspec import starter_file
    from armada_web.bots import services as bots
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion
    from armada_web.events import services
    from armada_web.events.models import Event, EventEntry
    from armada_web.teams import services as teams
    from armada_web.teams.models import Team
    from tests.support.services import missing

    if connection.vendor != "postgresql":
        missing("row locks need PostgreSQL (set DATABASE_URL; CI does)")
    olga, ann = make_user("olga"), make_user("ann")
    crew = teams.create_team(user=ann, name="crew")
    teams.join_team(user=olga, team=crew, key=crew.join_key)
    bot = bots.create_bot(user=ann, name="crewbot", game="galaxy", team=crew.pk)
    version = bots.upload_version(bot=bot, user=ann, filename="main.py",
                                  data=starter_file("greedy", "galaxy").read_bytes())
    BotVersion.objects.filter(pk=version.pk).update(status="valid")
    refresh_active(bot=bot)
    event = services.create_event(user=olga, name="Club", game="galaxy", format="round_robin")
    outcomes = locked_then(  # enter waits at its team lock (before it, the event's row was taken); olga goes
        lambda: services.enter(user=ann, event=event, bot_id=bot.pk, invite=event.invite).pk,
        lambda: olga.delete(),
        manager=Team.objects, method="select_for_update", pause=1.0)
    assert [kind for kind, _ in outcomes] == ["ok", "ok"], outcomes
    assert EventEntry.objects.filter(event=event, bot=bot).exists() and Event.objects.get(pk=event.pk).owner is None


def test_a_member_removed_as_they_enter_their_teams_bot_enters_nothing(members, make_user, monkeypatch):
    """Membership is asked again under the team's lock: a removal that committed just after the
    first check takes the bot from the member."""
    from armada_web.bots import services as bots
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion
    from armada_web.events import services
    from armada_web.events.models import EventEntry
    from armada_web.teams import services as teams
    from armada_web.teams.models import Team
    from armada_web.web.errors import Forbidden

    (owner, _v0), (mia, _v1), _ = members
    crew = teams.create_team(user=owner.user, name="crew")
    teams.join_team(user=mia.user, team=crew, key=crew.join_key)
    bot = bots.create_bot(user=owner.user, name="crewbot", game="galaxy", team=crew.pk)
    version = bots.upload_version(bot=bot, user=owner.user, filename="main.py", data=b"print(1)\n")
    BotVersion.objects.filter(pk=version.pk).update(status="valid")
    refresh_active(bot=bot)
    slug = create(owner).json()["slug"]
    manager = type(BotVersion.objects)
    real, removed = manager.playing, []

    def checked_then_removed(self):  # mia is removed from crew after every check before the transaction
        if not removed:
            removed.append(1)
            teams.remove_member(user=owner.user, team=Team.objects.get(pk=crew.pk), username="mia")
        return real(self)

    monkeypatch.setattr(manager, "playing", checked_then_removed)
    with pytest.raises(Forbidden, match="not your bot"):
        services.enter(user=mia.user, event=_event(slug), bot_id=bot.pk, invite=_event(slug).invite)
    assert not EventEntry.objects.filter(bot=bot).exists()


def test_entering_a_running_event_says_it_runs_to_whoever_sees_it(members):
    """An organiser's trial: a member who had entered posted again without the code once the event ran
    and was told "that is not this event's invite code"; no code would have helped. Whoever does not
    see the event still learns nothing of it."""
    (owner, v0), (mia, v1), (nils, v2) = members
    slug = create(owner).json()["slug"]
    invite = owner.get(f"/api/events/{slug}/").json()["invite"]
    assert enter(owner, slug, v0, None).status_code == 201
    assert enter(mia, slug, v1, invite).status_code == 201
    assert owner.post(f"/api/events/{slug}/start/").status_code == 200
    again = enter(mia, slug, v1, None)
    assert again.status_code == 409 and again.json()["detail"] == "this event is running: it takes no more entries"
    assert enter(nils, slug, v2, None).status_code == 404  # a private event, to one not in it: no such event
