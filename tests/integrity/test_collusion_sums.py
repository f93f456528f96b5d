"""Thrown games at scale (integrity.collusion.pair_sums and the screen): the database's sums are
the games' own, and the checks flag exactly what the exact test on every game read one by one
flags, seats with and without their kept chance and their rating before alike."""

from __future__ import annotations

import math
import random

import pytest
from django.utils import timezone

from armada_web.integrity.logic.collusion import FIELD, loss_chance, thrown
from armada_web.ladder.logic.ratings import Skill, win_chance

pytestmark = pytest.mark.django_db


def league(make_user, rng: random.Random) -> dict[str, int]:
    """Six bots of five owners (two bots share one), 150 games rated at drawn skills, a few
    seats without their rating before (their versions' current ratings count), some seats
    with their kept chance, a few draws; the bot `f` (the strongest) throws its games to `a`."""
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.ladder.models import Rating
    from armada_web.matches.models import Match, Participant
    from armada_web.teams.services import personal_team

    owners = [make_user(f"own{i}") for i in range(5)]
    versions = {}
    for n, name in enumerate("abcdef"):
        owner = owners[min(n, 4)]
        bot = Bot.objects.create(owner=owner, team=personal_team(user=owner), game="galaxy", name=name)
        versions[name] = BotVersion.objects.create(bot=bot, number=1, sha256=f"{n + 1:064x}", size=9, status="valid")
        Rating.objects.create(version=versions[name], game="galaxy", mu=20 + 2 * n, sigma=1.5)
    now = timezone.now()
    matches = Match.objects.bulk_create(Match(game="galaxy", seed=1, kind="ranked", status="finished", finished=now)
                                        for _ in range(150))
    seats = []
    for match in matches:
        one, two = rng.sample("abcdef", 2)
        skills = [Skill(rng.gauss(20 + 2 * "abcdef".index(x), 2), rng.uniform(1, 3)) for x in (one, two)]
        if {one, two} == {"a", "f"}:
            winner = 1 if one == "a" else 2
        else:
            roll = rng.random()
            winner = None if roll < 0.05 else 1 if roll < 0.05 + win_chance(skills[0], skills[1]) * 0.95 else 2
        stale, keep = rng.random() < 0.1, rng.random() < 0.5
        for seat, (name, skill, other) in enumerate(((one, skills[0], skills[1]), (two, skills[1], skills[0])), 1):
            result = "draw" if winner is None else "win" if winner == seat else "loss"
            seats.append(Participant(
                match=match, seat=seat, version=versions[name], bot=versions[name].bot, name=name, result=result,
                opponent=versions[two if seat == 1 else one].bot,
                mu_before=None if stale else skill.mu, sigma_before=None if stale else skill.sigma,
                expected=win_chance(skill, other) if keep and not stale else None))
    Participant.objects.bulk_create(seats)
    return {name: v.bot_id for name, v in versions.items()}


def test_the_sums_are_each_pairs_games_added_up(make_user):
    from armada_web.integrity.collusion import games, pair_sums

    league(make_user, random.Random(5))
    sides = {(s.loser, s.winner): s for s in pair_sums(min_games=0)}
    by_pair: dict[tuple[str, str], list] = {}
    for g in games():
        if g.winner is not None:
            first_loses = loss_chance(g.first_skill, g.second_skill)
            by_pair.setdefault((g.first, g.second), []).append((g.winner == 2, first_loses))
            second_loses = loss_chance(g.second_skill, g.first_skill)
            by_pair.setdefault((g.second, g.first), []).append((g.winner == 1, second_loses))
    assert sides.keys() == by_pair.keys()
    for key, played in by_pair.items():
        side, chances = sides[key], [c for _, c in played]
        assert side.games == len(played) and side.losses == sum(lost for lost, _ in played)
        assert math.isclose(side.expected, sum(chances), rel_tol=1e-6)
        assert math.isclose(side.least, min(chances), rel_tol=1e-6)
        assert math.isclose(side.log_floor, sum(math.log(c) for c in chances), rel_tol=1e-6)


def as_finals() -> object:
    """The league's matches made a season's finals (an entry per version, a finals game per match)."""
    from datetime import timedelta

    from armada_web.bots.models import BotVersion
    from armada_web.matches.models import Match, Participant
    from armada_web.seasons.models import Entry, FinalsGame, Season

    now = timezone.now()
    season = Season.objects.create(slug="f1", name="F1", game="galaxy", opens=now - timedelta(days=9),
                                   closes=now - timedelta(days=2), ends=now + timedelta(days=5), state="finals")
    entries = {v.pk: Entry.objects.create(season=season, version=v, version_ref=v.pk, version_number=1, bot=v.bot,
                                          bot_ref=v.bot.pk, bot_name=v.bot.name, owner=v.bot.owner, seed=n)
               for n, v in enumerate(BotVersion.objects.select_related("bot"), start=1)}
    Match.objects.update(kind="finals")
    for n, match in enumerate(Match.objects.order_by("pk"), start=1):
        one, two = (entries[v] for v in Participant.objects.filter(match=match).order_by("seat")
                    .values_list("version_id", flat=True))
        FinalsGame.objects.create(season=season, stage=1, round=n, first=one, second=two, match=match, counted=True)
    return season


def test_the_field_sums_are_each_bots_games_added_up(make_user):
    """Each finals entry against the field: its decisive games against every opponent, summed by the
    database as the pure test adds them (one that met one opponent only is its pair's test, left
    out); none over ranked play."""
    from armada_web.integrity.collusion import field_sums, games

    league(make_user, random.Random(5))
    assert field_sums(min_games=0) == []  # ranked play: no field tests
    season = as_finals()
    sides = {s.loser: s for s in field_sums(season=season, min_games=0)}
    played: dict[str, list[tuple[bool, float]]] = {}
    met: dict[str, set[str]] = {}
    for g in games(season=season):
        for side, other, mine, theirs, lost in ((g.first, g.second, g.first_skill, g.second_skill, g.winner == 2),
                                                (g.second, g.first, g.second_skill, g.first_skill, g.winner == 1)):
            if g.winner is not None:
                met.setdefault(side, set()).add(other)
                played.setdefault(side, []).append((lost, loss_chance(mine, theirs)))
    assert sides.keys() == {side for side in played if len(met[side]) >= 2} and all(s.winner == FIELD
                                                                                      for s in sides.values())
    for side, found in sides.items():
        chances = [c for _, c in played[side]]
        assert found.games == len(chances) and found.losses == sum(lost for lost, _ in played[side])
        assert math.isclose(found.expected, sum(chances), rel_tol=1e-6)
        assert math.isclose(found.least, min(chances), rel_tol=1e-6)
        assert math.isclose(found.log_floor, sum(math.log(c) for c in chances), rel_tol=1e-6)


def test_the_checks_flag_what_the_exact_test_on_every_game_flags(make_user):
    from armada_web.integrity.collusion import games, thrown_games

    bots = league(make_user, random.Random(7))
    season = as_finals()  # (its finals: each entry against the field too)
    flagged = {}
    for alpha in (0.01, 0.9):
        exact = thrown(games(season=season), alpha=alpha, finals=list(games(season=season)))
        found = flagged[alpha] = thrown_games(season=season, alpha=alpha)
        assert [f.evidence["bots"] for f in found] == [[int(t.loser)] + ([] if t.winner == FIELD else [int(t.winner)])
                                                       for t in exact.flagged]
        assert [f.evidence["p_value"] for f in found] == [t.p_value for t in exact.flagged]
        assert all(f.evidence["pairs_tested"] == exact.tested and f.evidence["pairs_counted"] == exact.counted
                   for f in found)
    assert [f.evidence["bots"] for f in flagged[0.01]] == [[bots["f"], bots["a"]]]
    assert len(flagged[0.9]) > 1  # honest pairs too at a lax rate: the screen let them through
