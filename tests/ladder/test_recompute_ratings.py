"""`recompute_ratings` gives the live ratings back from the match history alone (faults, draws,
benching, a new version's placement from its predecessor included)."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command

from armada.games.base import Result
from armada.referee.match import MatchOutcome, PlayerReport

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _unconsumed(settings):
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)


def play(first, second, winner, statuses):
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH, record
    from armada_web.matches.services import create_match

    match = create_match(game="galaxy", first=first, second=second)
    lease = claim(kind=MATCH, job_id=match.pk)
    participants = list(match.participants.order_by("seat"))
    players = [PlayerReport(seat, "x", statuses[seat - 1], "" if statuses[seat - 1] == "ok" else "boom")
               for seat in (1, 2)]
    outcome = MatchOutcome(Result(winner, "forfeit" if "crashed" in statuses else "turn_limit", 10),
                           players, {"engine_version": "2"})
    assert record(lease=lease, match=match, participants=participants, outcome=outcome,
                  replay_name="r", log_names={1: "a", 2: "b"}) == "finished"


def snapshot():
    from armada_web.ladder.models import Rating, RatingChange
    from armada_web.matches.models import Participant

    fields = ("version_id", "mu", "sigma", "games", "wins", "draws", "losses", "faults_in_row", "benched",
              "benched_reason")
    return (sorted(Rating.objects.values_list(*fields)),
            sorted(RatingChange.objects.values_list("version_id", "match_id", "mu", "sigma")),
            sorted(Participant.objects.values_list("id", "mu_before", "sigma_before", "mu_after", "sigma_after",
                                                    "expected")))


def test_recompute_gives_the_live_ratings(make_user, valid_version):
    from armada_web.bots import activation, services
    from armada_web.bots.models import BotVersion

    rng = random.Random(5)
    owners = [make_user(f"user{n}") for n in range(4)]
    versions = [valid_version(owner, f"bot{n}") for n, owner in enumerate(owners)]
    for n in range(60):
        a, b = rng.sample(versions, 2)
        if "bot3" in (a.bot.name, b.bot.name) and n < 40:  # bot3 crashes until it is benched
            statuses = ("crashed", "ok") if a.bot.name == "bot3" else ("ok", "crashed")
            winner = 2 if a.bot.name == "bot3" else 1
        else:
            statuses, winner = ("ok", "ok"), rng.choice([1, 2, None])
        play(a, b, winner, statuses)
        if n == 30:  # bot0's owner uploads version 2: placed from version 1
            newer = services.upload_version(bot=versions[0].bot, user=owners[0], filename="main.py",
                                            data=b"print('v2')\n")
            BotVersion.objects.filter(pk=newer.pk).update(status="valid")
            activation.refresh_active(bot=versions[0].bot)
            versions[0] = BotVersion.objects.select_related("bot").get(pk=newer.pk)
    live = snapshot()
    from armada_web.ladder.models import Rating

    assert Rating.objects.filter(benched=True).exists()
    assert Rating.objects.get(version=versions[0]).games > 0
    from armada_web.matches.models import Participant

    assert all(0 < row[-1] < 1 for row in live[2])  # every seat kept its expected result
    Rating.objects.update(mu=1.0, sigma=1.0, games=0)  # a broken ladder
    Participant.objects.update(expected=None)
    call_command("recompute_ratings")
    assert snapshot() == live


def test_a_version_after_a_rollback_starts_from_the_version_that_played_last(make_user, valid_version):
    """Deadline day: version 2 played, the owner pinned version 1 back, then uploaded version 3:
    it starts where version 1 (the bot as shown) was, not from version 2, live and recomputed."""
    from armada_web.bots import services
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.logic.ratings import Skill, placement_start
    from armada_web.ladder.models import Rating
    from armada_web.matches.models import Participant

    owner, rival = make_user("owner"), valid_version(make_user("rival"), "rival")
    first = valid_version(owner, "mine")

    def upload(code: bytes) -> BotVersion:
        version = services.upload_version(bot=first.bot, user=owner, filename="main.py", data=code)
        BotVersion.objects.filter(pk=version.pk).update(status="valid")
        from armada_web.bots.activation import refresh_active

        refresh_active(bot=first.bot)
        return BotVersion.objects.select_related("bot").get(pk=version.pk)

    for _ in range(3):
        play(first, rival, 1, ("ok", "ok"))  # version 1 wins: high
    second = upload(b"print('v2')\n")
    for _ in range(3):
        play(second, rival, 2, ("ok", "ok"))  # version 2 loses: low
    services.set_active(bot=first.bot, user=owner, version_id=first.pk)  # rolled back
    play(first, rival, None, ("ok", "ok"))
    shown = Rating.objects.get(version=first)
    third = upload(b"print('v3')\n")
    play(third, rival, None, ("ok", "ok"))
    start = placement_start(Skill(shown.mu, shown.sigma))
    seat = Participant.objects.get(version=third)
    assert (seat.mu_before, seat.sigma_before) == (pytest.approx(start.mu), pytest.approx(start.sigma))
    live = snapshot()
    Rating.objects.update(mu=1.0, sigma=1.0, games=0)
    call_command("recompute_ratings")
    assert snapshot() == live


def test_staff_voiding_a_ranked_match_takes_it_out_of_the_ratings(make_user, valid_version, admin_client):
    from armada_web.ladder.models import Rating
    from armada_web.matches.models import Match

    ann, ben = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    play(ann, ben, 1, ("ok", "ok"))
    before = snapshot()
    play(ann, ben, 2, ("ok", "ok"))
    assert sorted(Rating.objects.values_list("games", flat=True)) == [2, 2]
    last = Match.objects.order_by("-id").first()
    response = admin_client.post("/admin/matches/match/", {"action": "void", "_selected_action": [last.pk]})
    assert response.status_code == 302
    last.refresh_from_db()
    assert last.status == "void" and last.reason.startswith("voided by staff")
    ratings, history, participants = snapshot()
    assert (ratings, history) == before[:2]  # as if the voided match had never been played
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1]
    # A trial: the voided match's page and API still showed "Rating after" and "+10.0: beat a bot ...".
    assert participants == before[2][:2] + [(pk, None, None, None, None, None) for pk, *_rest in participants[2:]]
    api = admin_client.get(f"/api/matches/{last.pk}/").json()
    assert [seat["rating"] for seat in api["players"]] == [None, None]
    assert [seat["rating_after"] for seat in api["players"]] == [None, None]
    assert api["reason"] == "voided by staff: from the admin site" and api["status"] == "void"
    from django.contrib.admin.models import LogEntry

    assert LogEntry.objects.get(object_id=str(last.pk)).get_change_message() == "voided"  # who: staff see it there
    page = admin_client.get(f"/matches/{last.pk}/").content.decode()
    assert "Void: it counts for nothing (as played: ben-bot (seat 2) won at the turn limit)." in page
    assert "beat a bot" not in page and 'class="result result-win"' not in page
    first = Match.objects.order_by("id").first()
    assert "won at the turn limit." in admin_client.get(f"/matches/{first.pk}/").content.decode()  # counted: shown
    listed = admin_client.get("/matches/").content.decode()  # the list marks the void one's seats no more either
    assert listed.count('class="result result-win"') == 1
    assert f'<a href="/matches/{first.pk}/" class="watch">' in listed  # a trial: the void one offered "watch"
    assert f'<a href="/matches/{last.pk}/" class="watch">' not in listed  # for a page without its replay



def test_a_voided_finals_game_that_was_counted_still_says_it_counts(make_user, valid_version, admin_client):
    """A review: the page said "counts for nothing" of a finals game voided after it was counted, which
    stays counted (docs/seasons.md); one not counted (made again) counts for nothing."""
    from datetime import timedelta

    from django.utils import timezone

    from armada_web.matches.models import Match, MatchKind
    from armada_web.matches.services import void_by_staff
    from armada_web.seasons.models import Entry, FinalsGame, Season

    ann, ben = valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")
    play(ann, ben, 1, ("ok", "ok"))
    match = Match.objects.get()
    Match.objects.filter(pk=match.pk).update(kind=MatchKind.FINALS)
    now = timezone.now()
    season = Season.objects.create(slug="spring", name="Spring <i>cup</i>", game="galaxy", opens=now,
                                   closes=now + timedelta(days=1), ends=now + timedelta(days=2))
    first, second = (Entry.objects.create(season=season, version=v, version_ref=v.pk, version_number=v.number,
                                          bot=v.bot, bot_ref=v.bot_id, bot_name=v.bot.name, owner=v.bot.owner, seed=n)
                     for n, v in enumerate((ann, ben), start=1))
    game = FinalsGame.objects.create(season=season, stage=1, round=1, first=first, second=second, match=match,
                                     counted=True)
    assert void_by_staff(match=Match.objects.get(pk=match.pk), reason="late")
    page = admin_client.get(f"/matches/{match.pk}/").content.decode()
    assert ("ann-bot (seat 1) won at the turn limit. Void since, but it still counts in the finals of "
            "Spring &lt;i&gt;cup&lt;/i&gt;.") in page
    assert 'class="result result-win"' in page  # its seats' results stand, as its figures do
    FinalsGame.objects.filter(pk=game.pk).update(counted=False)
    assert "Void: it counts for nothing" in admin_client.get(f"/matches/{match.pk}/").content.decode()
