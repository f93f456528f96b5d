"""An entry withdrawn and an event ended by its owner (an organiser's wish after the trials: a member
who entered the wrong bot was stuck with it, and an event made by mistake, or one that had to stop,
stayed open or ran on). Withdrawing is for an open event only, by a member of the team that entered
the bot or the event's owner; it frees no entry of the day's limit. Ending freezes the table as it stands."""

from __future__ import annotations

import pytest

from tests.support.seasons_helpers import queued, record_result

pytestmark = pytest.mark.django_db


def _entries(client, slug):
    return [r["bot"]["name"] for r in client.get(f"/api/events/{slug}/").json()["table"]]


def test_a_member_withdraws_their_entry_and_enters_another_bot(club, valid_version):
    slug, mia = club["slug"], club["mia"]
    other = valid_version(mia.user, "mia-second").bot
    path = f"/api/events/{slug}/entries/{club['bots']['mia'].pk}/"
    assert club["nils"].delete(path).status_code == 403  # not his bot, not his event
    assert club["eve"].delete(path).status_code == 404  # she does not know the private event exists
    assert mia.delete(path).status_code == 204
    assert _entries(club["olga"], slug) == ["nils-bot"]
    assert mia.delete(path).status_code == 404  # twice: gone
    again = mia.post(f"/api/events/{slug}/entries/", {"bot": other.pk, "invite": club["invite"]}, format="json")
    assert again.status_code == 201, again.json()
    assert sorted(_entries(club["olga"], slug)) == ["mia-second", "nils-bot"]
    bad = mia.delete(f"/api/events/{slug}/entries/999999/")
    assert bad.status_code == 404 and "no entry of bot 999999" in bad.json()["detail"]


def test_the_owner_removes_an_entry_and_nobody_withdraws_once_it_started(club):
    from armada_web.events.models import EventWithdrawal

    slug, olga = club["slug"], club["olga"]
    assert olga.delete(f"/api/events/{slug}/entries/{club['bots']['nils'].pk}/").status_code == 204
    withdrawal = EventWithdrawal.objects.get()
    assert (withdrawal.bot_name, withdrawal.owner.username, withdrawal.by.username) == ("nils-bot", "nils", "olga")
    olga.post(f"/api/events/{slug}/entries/", {"bot": club["bots"]["olga"].pk}, format="json")
    assert olga.post(f"/api/events/{slug}/start/").status_code == 200
    late = club["mia"].delete(f"/api/events/{slug}/entries/{club['bots']['mia'].pk}/")
    assert late.status_code == 409 and "its entries stay" in late.json()["detail"]
    assert sorted(_entries(olga, slug)) == ["mia-bot", "olga-bot"]


def test_entering_and_withdrawing_frees_no_entry_of_the_days_limit(club, armada, make_user, valid_version, api):
    armada(event_entries_per_day=2)
    zed = api(make_user("zed"))
    bot = valid_version(zed.user, "zed-bot").bot
    slug, body = club["slug"], {"bot": bot.pk, "invite": club["invite"]}
    for _ in range(2):
        assert zed.post(f"/api/events/{slug}/entries/", body, format="json").status_code == 201
        assert zed.delete(f"/api/events/{slug}/entries/{bot.pk}/").status_code == 204
    third = zed.post(f"/api/events/{slug}/entries/", body, format="json")
    assert third.status_code == 429 and "2 event entries per day" in third.json()["detail"]


def test_the_owner_ends_a_running_event_and_its_waiting_matches_are_cancelled(club):
    from armada_web.events import matchmaking
    from armada_web.events.models import EventGame
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH

    slug, olga = club["slug"], club["olga"]
    olga.post(f"/api/events/{slug}/start/")
    matchmaking.fill(workers=1)
    waiting = queued("event")
    assert waiting
    assert club["mia"].post(f"/api/events/{slug}/end/").status_code == 403  # an entrant, not its owner
    ended = olga.post(f"/api/events/{slug}/end/")
    assert ended.status_code == 200 and ended.json()["state"] == "finished"
    assert [r["place"] for r in ended.json()["table"]] == [1, 2]
    assert all(claim(kind=MATCH, job_id=m.pk) is None for m in waiting)  # no worker will play them
    assert not EventGame.objects.filter(event__slug=slug, counted=False, skipped="").exists()
    again = olga.post(f"/api/events/{slug}/end/")
    assert again.status_code == 409 and "finished already" in again.json()["detail"]
    assert club["eve"].post(f"/api/events/{slug}/end/").status_code == 404


def test_an_open_event_ended_never_starts(club, client):
    from armada_web.events import periodic
    from armada_web.events.models import Event

    slug = club["slug"]
    Event.objects.filter(slug=slug).update(starts=Event.objects.get(slug=slug).created)
    assert club["olga"].post(f"/api/events/{slug}/end/").json()["state"] == "finished"
    periodic.tick(workers=1)
    event = Event.objects.get(slug=slug)
    assert event.state == "finished" and event.started is None and not event.games.exists()
    late = club["eve"].post(f"/api/events/{slug}/entries/", {"bot": club["bots"]["eve"].pk,
                                                            "invite": club["invite"]}, format="json")
    assert late.status_code == 409
    # its page (an organiser's trial): no start time as if to come, no places as if decided
    client.force_login(club["olga"].user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert "ended before it started" in page and " · starts " not in page
    assert "<tr><td>—</td>" in page and "<tr><td>1</td>" not in page
    # nor in the API (left by the last session's note): every row without a place
    table = club["olga"].get(f"/api/events/{slug}/").json()["table"]
    assert len(table) == 2 and [row["place"] for row in table] == [None, None]


def test_an_ended_round_robin_says_how_many_games_were_played_not_skipped(club, client):
    """An organiser's trial: a round robin ended 6 s after its start said "30 of 30 games played"."""
    slug, olga = club["slug"], club["olga"]
    olga.post(f"/api/events/{slug}/start/")
    ended = olga.post(f"/api/events/{slug}/end/").json()
    assert (ended["games_played"], ended["games_done"], ended["games_total"]) == (0, 1, 1)
    client.force_login(olga.user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert "0 of 1 games played; 1 not played (1: the event ended)." in page
    assert "ended " in page and 'id="event-planned-end"' not in page  # it had no planned end


def test_start_is_offered_from_two_entries(club, client):
    from armada_web.events.models import EventEntry

    client.force_login(club["olga"].user)
    assert "Start the event now (2 entries)" in client.get(f"/events/{club['slug']}/").content.decode()
    EventEntry.objects.filter(bot_ref=club["bots"]["nils"].pk).delete()
    page = client.get(f"/events/{club['slug']}/").content.decode()
    assert "Start the event now" not in page and "It can start once it has 2 entries (1 now)." in page


def test_a_bot_disabled_by_staff_plays_no_more_event_games(club, client):
    """An organiser's trial: a bot disabled by staff ("stop the selected bots from playing") played on
    in the event it had entered, and won."""
    from armada_web.bots.services import set_disabled
    from armada_web.events import matchmaking
    from armada_web.events.models import EventGame

    slug, olga = club["slug"], club["olga"]
    olga.post(f"/api/events/{slug}/start/")
    set_disabled(bot=club["bots"]["mia"], disabled=True, reason="by staff")
    matchmaking.fill(workers=1)
    assert not queued("event")
    game = EventGame.objects.get(event__slug=slug)
    assert game.skipped == "not played: mia-bot was disabled by staff" and game.match is None
    # its page says why (an organiser's trial: only "a bot was deleted or disabled by staff, or ...")
    client.force_login(olga.user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert "0 of 1 games played; 1 not played (1: mia-bot was disabled by staff)." in page


@pytest.mark.parametrize("stop", ["retired", "account deleted", "account disabled", "bot deleted"])
def test_a_bot_retired_or_of_a_gone_account_plays_no_more_event_games(club, stop):
    """An organiser's trial: a retired bot played all its games of a private round robin, and a deleted
    account's entry (its code gone) was sent match after match, each void as the platform's failure."""
    from django.contrib.auth import get_user_model

    from armada_web.bots.services import retire_bot
    from armada_web.events import matchmaking
    from armada_web.events.models import EventGame
    from armada_web.matches.models import Match

    slug, olga, mia = club["slug"], club["olga"], club["mia"]
    olga.post(f"/api/events/{slug}/start/")
    if stop == "retired":
        retire_bot(bot=club["bots"]["mia"], user=mia.user)
    elif stop == "account deleted":
        mia.user.delete()
    elif stop == "bot deleted":  # its owner deletes it mid-event (the entry keeps its name)
        assert mia.delete(f"/api/bots/{club['bots']['mia'].pk}/").status_code == 204
    else:  # staff untick "active" in the admin
        get_user_model().objects.filter(pk=mia.user.pk).update(is_active=False)
    matchmaking.fill(workers=1)
    assert not queued("event") and not Match.objects.filter(kind="event").exists()
    why = {"retired": "mia-bot was retired", "account deleted": "mia-bot's owner deleted their account",
           "account disabled": "mia-bot does not play now",  # (a ban is not told: a review)
           "bot deleted": "mia-bot was deleted"}[stop]
    assert EventGame.objects.get(event__slug=slug).skipped == f"not played: {why}"


def test_a_ladder_event_pairs_no_entry_that_stopped(members_ladder):
    """The ladder event's side of it: an entry that stopped playing is never paired (each pairing
    would be made, then skipped, pass after pass)."""
    from armada_web.bots.services import retire_bot
    from armada_web.events import matchmaking
    from armada_web.events.models import EventGame

    slug, clients, bots = members_ladder
    retire_bot(bot=bots["mia"], user=clients["mia"].user)
    for _ in range(3):
        matchmaking.fill(workers=4)
        for match in queued("event"):
            record_result(match, 1)
    games = list(EventGame.objects.filter(event__slug=slug).select_related("first__version__bot",
                                                                            "second__version__bot"))
    assert games and not any(g.skipped for g in games)
    assert {b for g in games for b in (g.first.bot_name, g.second.bot_name)} == {"olga-bot", "nils-bot"}


@pytest.fixture
def members_ladder(make_user, valid_version, api):
    """A running ladder event of olga, mia and nils (an hour long)."""
    from datetime import timedelta

    from django.utils import timezone

    clients = {name: api(make_user(name)) for name in ("olga", "mia", "nils")}
    bots = {name: valid_version(client.user, f"{name}-bot").bot for name, client in clients.items()}
    made = clients["olga"].post("/api/events/", {"name": "Ladder", "game": "galaxy", "format": "ladder",
                                                 "ends": (timezone.now() + timedelta(hours=1)).isoformat()},
                                format="json").json()
    for name, client in clients.items():
        answer = client.post(f"/api/events/{made['slug']}/entries/", {"bot": bots[name].pk, "invite": made["invite"]},
                             format="json")
        assert answer.status_code == 201, answer.json()
    assert clients["olga"].post(f"/api/events/{made['slug']}/start/").status_code == 200
    return made["slug"], clients, bots


def test_a_skipped_game_does_not_hold_up_the_next_in_the_same_fill(club, make_user, valid_version):
    """A review: a game skipped at sending ended the pass, so with a disabled bot's game first the
    fill sent none of the playable games."""
    from armada_web.bots.services import set_disabled
    from armada_web.events import matchmaking
    from armada_web.events.models import EventGame

    slug, olga = club["slug"], club["olga"]
    olga.post(f"/api/events/{slug}/entries/", {"bot": club["bots"]["olga"].pk}, format="json")
    olga.post(f"/api/events/{slug}/start/")  # 3 entries: 3 games
    set_disabled(bot=club["bots"]["mia"], disabled=True, reason="by staff")
    matchmaking.fill(workers=8)
    games = list(EventGame.objects.filter(event__slug=slug).order_by("number"))
    assert sum(bool(g.skipped) for g in games) == 2 and len(queued("event")) == 1  # the game without mia


def test_the_event_page_offers_withdraw_and_end_to_whom_it_may(club, client):
    slug = club["slug"]
    client.force_login(club["mia"].user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert page.count(">Withdraw</button>") == 1 and 'id="end-event"' not in page  # her own entry only
    client.force_login(club["olga"].user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert page.count(">Withdraw</button>") == 2 and 'id="end-event"' in page
    done = client.post(f"/events/{slug}/withdraw/", {"bot": str(club["bots"]["mia"].pk)}, follow=True)
    assert "The entry is withdrawn." in done.content.decode() and _entries(club["olga"], slug) == ["nils-bot"]
    refused = client.post(f"/events/{slug}/withdraw/", {"bot": "x"}, follow=True).content.decode()
    assert "give the entered bot by its id" in refused
    unconfirmed = client.post(f"/events/{slug}/end/", follow=True).content.decode()
    assert "tick the box to confirm" in unconfirmed and 'id="end-event"' in unconfirmed  # still open
    ended = client.post(f"/events/{slug}/end/", {"confirm": "yes"}, follow=True).content.decode()
    assert "Club has ended: its table is final." in ended and ">Withdraw</button>" not in ended
    assert 'id="end-event"' not in ended
    client.force_login(club["eve"].user)
    assert client.post(f"/events/{slug}/end/", {"confirm": "yes"}).status_code == 404


def test_withdrawing_from_a_private_event_entered_by_its_link_lands_on_the_events_list(club, client):
    """A review: a member who entered with the invite link only is no longer in the private event
    once the entry is withdrawn, so the redirect to its page was a 404 and the message was lost."""
    client.force_login(club["mia"].user)
    done = client.post(f"/events/{club['slug']}/withdraw/", {"bot": str(club["bots"]["mia"].pk)}, follow=True)
    assert done.status_code == 200 and done.request["PATH_INFO"] == "/events/"
    assert "The entry is withdrawn: you are no longer in Club." in done.content.decode()


def _crew(make_user, api, valid_version):
    """ann and bob (API clients) in the team crew, and crew's bot crew-bot."""
    from armada_web.teams import services

    ann, bob = api(make_user("ann")), api(make_user("bob"))
    crew = services.create_team(user=ann.user, name="crew")
    services.join_team(user=bob.user, team=crew, key=crew.join_key)
    return ann, bob, crew, valid_version(ann.user, "crew-bot", team=crew.pk).bot


def test_the_member_who_entered_a_bot_withdraws_it_after_leaving_its_team(make_user, api, club, valid_version):
    """One bot per member: a member who left the team whose bot they entered would be held in the
    event by a bot that is no longer theirs."""
    from armada_web.teams import services

    _ann, bob, crew, bot = _crew(make_user, api, valid_version)
    slug = club["slug"]
    assert bob.post(f"/api/events/{slug}/entries/", {"bot": bot.pk, "invite": club["invite"]},
                    format="json").status_code == 201
    services.leave_team(user=bob.user, team=crew)
    assert bob.delete(f"/api/events/{slug}/entries/{bot.pk}/").status_code == 204


def test_a_member_the_team_removed_no_longer_acts_on_its_entry(make_user, api, club, valid_version):
    """A security trial: a member removed from the team still withdrew the team's bot from an event
    and still saw the private event through the entry they had made. The entry is the team's: its
    removal ends their say (one who left keeps it, above); it still counts as their one entry."""
    from armada_web.events.models import Event
    from armada_web.teams import services

    ann, bob, crew, crew_bot = _crew(make_user, api, valid_version)
    made = {"crew-bot": crew_bot, "bob-own": valid_version(bob.user, "bob-own").bot}
    slug = club["slug"]
    assert not Event.objects.get(slug=slug).public  # (what a removed member must no longer see)
    assert bob.post(f"/api/events/{slug}/entries/", {"bot": made["crew-bot"].pk, "invite": club["invite"]},
                    format="json").status_code == 201
    services.remove_member(user=ann.user, team=crew, username="bob")
    assert bob.delete(f"/api/events/{slug}/entries/{made['crew-bot'].pk}/").status_code == 404  # unseen now
    assert bob.get(f"/api/events/{slug}/").status_code == 404
    assert "crew-bot" in _entries(ann, slug)  # the team's entry stays
    # their own entry per member is free again: with the link, their own bot
    again = bob.post(f"/api/events/{slug}/entries/", {"bot": made["bob-own"].pk, "invite": club["invite"]},
                     format="json")  # the entry still holds their one entry of the event
    assert again.status_code == 409 and "one bot per member" in again.json()["detail"]
    assert sorted(_entries(ann, slug)) == ["crew-bot", "mia-bot", "nils-bot"]
    services.join_team(user=bob.user, team=crew, key=services.renew_key(user=ann.user, team=crew).join_key)
    assert bob.get(f"/api/events/{slug}/").status_code == 200  # a member again: the team's entry is theirs too


def test_a_member_removed_then_back_who_left_keeps_their_entry(make_user, api, club, valid_version):
    """A review: a removal long before (then joined again, entered, and left on their own) still
    took the entry from them; the latest membership decides."""
    from armada_web.teams import services

    ann, bob, crew, bot = _crew(make_user, api, valid_version)
    services.remove_member(user=ann.user, team=crew, username="bob")
    services.join_team(user=bob.user, team=crew, key=services.renew_key(user=ann.user, team=crew).join_key)
    slug = club["slug"]
    assert bob.post(f"/api/events/{slug}/entries/", {"bot": bot.pk, "invite": club["invite"]},
                    format="json").status_code == 201
    services.leave_team(user=bob.user, team=crew)  # left on their own this time
    assert bob.get(f"/api/events/{slug}/").status_code == 200
    assert bob.delete(f"/api/events/{slug}/entries/{bot.pk}/").status_code == 204


def test_a_bot_moved_in_after_entering_is_named_as_the_entry_that_stops_another(make_user, api, club, valid_version):
    """An organiser's trial: a personal bot entered, then moved into a new shared team; the team's
    other member, entering their own bot, was told "your team Zeta has entered dave-bot already",
    though the entry is the old team's (its members are the event's: check_move) and the event
    answered her 404. The refusal now says how the bot is there."""
    from armada_web.bots.moves import move_bot
    from armada_web.teams import services

    dave, carol = api(make_user("dave")), api(make_user("carol"))
    bot = valid_version(dave.user, "dave-bot").bot
    slug = club["slug"]
    assert dave.post(f"/api/events/{slug}/entries/", {"bot": bot.pk, "invite": club["invite"]},
                     format="json").status_code == 201
    zeta = services.create_team(user=dave.user, name="Zeta")
    services.join_team(user=carol.user, team=zeta, key=zeta.join_key)
    move_bot(bot=bot, user=dave.user, team=zeta.pk)
    theirs = valid_version(carol.user, "zeta-two", team=zeta.pk).bot
    refused = carol.post(f"/api/events/{slug}/entries/", {"bot": theirs.pk, "invite": club["invite"]}, format="json")
    assert refused.status_code == 409
    assert refused.json()["detail"] == ("your team Zeta's bot dave-bot is in this event already, entered for dave "
                                        "before it moved to your team: one bot per team")


def test_a_bot_moved_to_another_team_stays_the_entering_teams_entry(make_user, api, valid_version):
    """A review: the new team's members withdrew an entry its bot's old team had made, though the
    event's visibility (events.access) goes by the team that entered it."""
    from armada_web.bots.moves import move_bot
    from armada_web.teams import services

    olga, dave, carol = api(make_user("olga")), api(make_user("dave")), api(make_user("carol"))
    made = olga.post("/api/events/", {"name": "Open", "game": "galaxy", "format": "round_robin", "public": True},
                     format="json").json()
    slug, bot = made["slug"], valid_version(dave.user, "dave-bot").bot
    entered = dave.post(f"/api/events/{slug}/entries/", {"bot": bot.pk, "invite": made.get("invite", "")},
                        format="json")
    assert entered.status_code == 201, entered.json()
    zeta = services.create_team(user=dave.user, name="Zeta")
    services.join_team(user=carol.user, team=zeta, key=zeta.join_key)
    move_bot(bot=bot, user=dave.user, team=zeta.pk)
    from armada_web.events.models import Event
    from armada_web.events.queries import withdrawable

    event = Event.objects.get(slug=slug)  # the page offers "Withdraw" exactly where the service takes it
    assert (withdrawable(event, user=carol.user), withdrawable(event, user=dave.user)) == (set(), {bot.pk})
    refused = carol.delete(f"/api/events/{slug}/entries/{bot.pk}/")
    assert refused.status_code == 403 and "the team that entered the bot" in refused.json()["detail"]
    assert dave.delete(f"/api/events/{slug}/entries/{bot.pk}/").status_code == 204


def test_a_match_finished_after_the_early_end_says_it_counts_for_nothing(club, client):
    """An organiser's trial: a match that finished 0.2 s after "End the event now" showed its result on
    its page as any other, though the table (rightly) left it out: the page says it counts for nothing."""
    from armada.games.base import Result
    from armada.referee.match import MatchOutcome, PlayerReport
    from armada_web.events import matchmaking
    from armada_web.events.models import EventGame
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH, record

    slug, olga = club["slug"], club["olga"]
    olga.post(f"/api/events/{slug}/start/")
    matchmaking.fill(workers=1)
    match = queued("event")[0]
    lease = claim(kind=MATCH, job_id=match.pk)  # a worker plays it as the event ends
    assert lease is not None and olga.post(f"/api/events/{slug}/end/").status_code == 200
    players = [PlayerReport(seat, "x", "ok", "") for seat in (1, 2)]
    record(lease=lease, match=match, participants=list(match.participants.order_by("seat")),
           outcome=MatchOutcome(Result(1, "turn_limit", 10), players, {"engine_version": "2"}),
           replay_name=f"matches/{match.pk}/r", log_names={1: "a", 2: "b"})
    match.refresh_from_db()
    game = EventGame.objects.get(match=match)
    assert match.status == "finished" and not game.counted and game.skipped, (match.status, game.skipped)
    client.force_login(club["olga"].user)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="result">It counts for nothing: the event ended (as played: ' in page, page
    assert 'class="result result-win"' not in page  # the seats' results are not shown as counted
