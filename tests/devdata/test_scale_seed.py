"""`seed_scale` fills an empty database with a consistent season: ratings that `recompute_ratings`
gives back, a ladder that follows the hidden skills, kept tallies that equal a recount, each
seat's bot and opponent, replays for the newest matches only, a full league; it refuses a
database that has users unless forced."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count, Q

from tests.support.scale_data import seed

pytestmark = pytest.mark.django_db


def kendall_tau(order: list[int], truth: dict[int, float]) -> float:
    """Kendall's tau between a ranking (best first) and the values in `truth` (higher is better)."""
    concordant = discordant = 0
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            if truth[a] > truth[b]:
                concordant += 1
            elif truth[a] < truth[b]:
                discordant += 1
    return (concordant - discordant) / max(concordant + discordant, 1)


def test_the_season_is_consistent_and_the_ladder_follows_the_hidden_skills():
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.models import LeagueEntry, Rating, RatingChange
    from armada_web.ladder.queries import ladder
    from armada_web.ladder.recompute import recompute
    from armada_web.matches.models import BotRecord, HeadToHead, Match, MatchKind, MatchStatus, Participant

    site = seed("large", replays=3)
    seeded = site.seeded
    assert Match.objects.count() == seeded.matches == 3000
    assert LeagueEntry.objects.count() == seeded.races == 24
    assert set(LeagueEntry.objects.values_list("played", flat=True)) == {23}
    # every seat names its version's bot and the other seat's
    seats = Participant.objects.select_related("version")
    assert all(p.bot_id == p.version.bot_id for p in seats)
    other = {(p.match_id, p.seat): p.bot_id for p in seats}
    assert all(p.opponent_id == other[(p.match_id, 3 - p.seat)] for p in seats)
    # the kept tallies are what a recount gives
    counted = {row["bot_id"]: row for row in Participant.objects.values("bot_id").annotate(
        n=Count("id"), w=Count("id", filter=Q(result="win", match__status=MatchStatus.FINISHED)),
        d=Count("id", filter=Q(result="draw", match__status=MatchStatus.FINISHED)))}
    for record in BotRecord.objects.all():
        row = counted[record.bot_id]
        assert (record.matches, record.wins, record.draws) == (row["n"], row["w"], row["d"])
    pairs = Participant.objects.filter(match__status=MatchStatus.FINISHED).values("bot_id", "opponent_id").annotate(
        n=Count("id"))
    kept = {(h.bot_id, h.opponent_id): h.games for h in HeadToHead.objects.all()}
    assert kept == {(p["bot_id"], p["opponent_id"]): p["n"] for p in pairs}
    # replays for the newest finished ranked matches only
    with_replay = list(Match.objects.exclude(replay="").order_by("id").values_list("id", flat=True))
    newest = list(Match.objects.filter(kind=MatchKind.RANKED, status=MatchStatus.FINISHED).order_by("-id")
                  .values_list("id", flat=True)[:3])
    assert sorted(with_replay) == sorted(newest)
    # the ladder follows the skills the seeder drew
    order = list(ladder("galaxy").values_list("version_id", flat=True))
    assert len(order) >= 50
    assert kendall_tau(order, seeded.skills) > 0.6
    # the ratings, history and before/after figures are what recomputing from the matches gives
    before = {r.version_id: (round(r.mu, 9), round(r.sigma, 9), r.games, r.wins, r.benched)
              for r in Rating.objects.filter(games__gt=0)}
    history = list(RatingChange.objects.order_by("version_id", "games").values_list("version_id", "games", "match_id"))
    recompute()
    after = {r.version_id: (round(r.mu, 9), round(r.sigma, 9), r.games, r.wins, r.benched)
             for r in Rating.objects.filter(games__gt=0)}
    assert before == after
    assert history == list(RatingChange.objects.order_by("version_id", "games")
                           .values_list("version_id", "games", "match_id"))
    playing = set(BotVersion.objects.playing().of_game("galaxy").values_list("pk", flat=True))
    assert set(Rating.objects.filter(playing=True).values_list("version_id", flat=True)) == playing


def test_a_database_with_users_is_refused_unless_forced(make_user):
    from armada_web.bots.models import Bot

    make_user("someone")
    with pytest.raises(CommandError, match="already has 1 user"):
        call_command("seed_scale", "--bots", "4", "--matches", "20", "--races", "2", "--replays", "0",
                     verbosity=0)
    assert Bot.objects.count() == 0
    call_command("seed_scale", "--bots", "4", "--matches", "20", "--races", "2", "--replays", "0", "--force",
                 verbosity=0)
    assert Bot.objects.count() == 6
    with pytest.raises(CommandError, match="bots must be a whole number"):
        call_command("seed_scale", "--bots", "1", "--matches", "20", "--races", "2", "--force", verbosity=0)
