"""Thrown games (integrity.logic.collusion): the exact tail, a planted thrower found, and honest
leagues flagged no more often than the stated false-alarm rate."""

from __future__ import annotations

import math
import random
from itertools import combinations
from statistics import NormalDist

from armada.ratings import BETA, Outcome, initial_rating, update
from armada_web.integrity.logic.collusion import (
    ALPHA,
    FIELD,
    Game,
    field_tests,
    flag,
    loss_chance,
    pair_tests,
    tail,
    tarone,
    thrown,
)
from armada_web.ladder.logic.ratings import Skill

_PHI = NormalDist().cdf


def test_the_tail_is_the_exact_poisson_binomial_sum():
    assert tail([0.5, 0.5], 2) == 0.25
    assert abs(tail([0.5, 0.5], 1) - 0.75) < 1e-12
    all_three, two = 0.2 * 0.5 * 0.9, 0.2 * 0.5 * 0.1 + 0.2 * 0.5 * 0.9 + 0.8 * 0.5 * 0.9
    assert abs(tail([0.2, 0.5, 0.9], 2) - (all_three + two)) < 1e-12
    assert tail([0.3] * 4, 0) == 1.0 and tail([0.3] * 4, 5) == 0.0


def test_the_loss_chance_is_the_ladder_models_and_uses_sigma():
    strong, weak = Skill(30.0, 1.0), Skill(20.0, 1.0)
    assert loss_chance(strong, weak) < 0.1 < 0.9 < loss_chance(weak, strong)
    assert abs(loss_chance(Skill(25, 2), Skill(25, 2)) - 0.5) < 1e-9
    assert loss_chance(strong, weak) < loss_chance(Skill(30.0, 8.0), Skill(20.0, 8.0))  # unsure: less sharp


def league(rng: random.Random, bots: int, games_per_pair: int, thrower: tuple[str, str] | None = None,
           sandbagger: str | None = None) -> list[Game]:
    """A ladder's games played from true skills, rated as the ladder rates them (ratings before each
    game kept); `thrower`'s first side loses every game to the second; `sandbagger`, the strongest
    bot, loses every game to everyone."""
    names = [f"b{i}" for i in range(bots)]
    truth = {name: rng.gauss(25.0, 4.0) for name in names}
    if thrower:  # a strong bot throws its games to a weak one
        truth[thrower[0]], truth[thrower[1]] = 31.0, 20.0
    rating = {name: initial_rating() for name in names}
    if sandbagger:  # the finals: every entry starts at its ladder rating, sigma raised (docs/seasons.md)
        truth[sandbagger] = 33.0
        rating = {name: Skill(truth[name], (1.2 ** 2 + 2.25 ** 2) ** 0.5) for name in names}
    schedule = [pair for pair in combinations(names, 2) for _ in range(games_per_pair)]
    rng.shuffle(schedule)
    games = []
    for match_id, (a, b) in enumerate(schedule, start=1):
        if rng.random() < 0.5:
            a, b = b, a
        if thrower and {a, b} == set(thrower):
            a_wins = a == thrower[1]
        elif sandbagger in (a, b):
            a_wins = b == sandbagger
        else:
            a_wins = rng.random() < _PHI((truth[a] - truth[b]) / (2 ** 0.5 * BETA))
        games.append(Game(match_id, a, b, 1 if a_wins else 2, rating[a], rating[b]))
        w, lo = (a, b) if a_wins else (b, a)
        rating[w], rating[lo] = update(rating[w], rating[lo], Outcome.WIN)
    return games


def test_a_planted_thrower_is_found_with_its_games():
    rng = random.Random(7)
    games = league(rng, 8, 8, thrower=("b0", "b1"))
    verdict = thrown(games)
    assert verdict.tested == 8 * 7 and 0 < verdict.counted <= verdict.tested
    assert thrown(games, finals=games).tested == 8 * 7 + 8  # as finals: each bot against the field too
    assert verdict.flagged, "the thrower was not found"
    top = verdict.flagged[0]
    assert (top.loser, top.winner) == ("b0", "b1")
    assert top.losses == top.games == 8 and top.expected < top.losses / 2
    assert top.p_value <= ALPHA / verdict.counted and top.adjusted == min(1.0, top.p_value * verdict.counted)
    assert len(top.lost) == 8 and set(top.lost) == set(top.match_ids)


def test_a_thrower_is_found_against_a_much_weaker_partner():
    """A strong bot that loses even half of its games to a far weaker one is suspicious."""
    strong, weak = Skill(35.0, 1.5), Skill(15.0, 1.5)
    games = [Game(i, "strong", "weak", 2 if i % 2 else 1, strong, weak) for i in range(1, 11)]
    verdict = thrown(games)
    assert [(t.loser, t.winner, t.losses) for t in verdict.flagged] == [("strong", "weak", 5)]


def test_a_bot_losing_to_everyone_is_found_against_the_field():
    """An organiser's trial: a top bot lost all its finals games, 3 to 12 to each of four entries,
    and no pair was flagged. With its test against the field (all its decisive games together, its
    finals rating falling after each loss) in the family, such a bot is flagged in every one of 40
    finals of 8 entries with 3 games a pair; by its pairs' tests alone, in a third of them."""
    with_field = pairs_only = 0
    for seed in range(40):
        games = league(random.Random(seed), 8, 3, sandbagger="b0")
        with_field += any(t.loser == "b0" for t in thrown(games, finals=games).flagged)
        pairs = pair_tests(games, min_games=3)
        alone = flag(pairs, alpha=ALPHA, tested=len(pairs), counted=tarone((t.floor for t in pairs), ALPHA))
        pairs_only += any(t.loser == "b0" for t in alone.flagged)
    assert with_field == 40 and pairs_only <= 20, (with_field, pairs_only)
    test = field_tests(league(random.Random(1), 5, 8, sandbagger="b0"), sides={"b0"})[0]
    assert (test.loser, test.winner, test.games, test.losses) == ("b0", FIELD, 32, 32) and len(test.lost) == 32
    assert math.isclose(test.p_value, test.floor) and test.p_value < 1e-6  # every game lost: the tail is the floor


def test_a_pair_flagged_explains_its_losers_field():
    """A bot that throws to one partner is flagged for that pair; its test against the field (the
    same losses, among its other games) is not a second finding."""
    games = league(random.Random(7), 8, 8, thrower=("b0", "b1"))
    verdict = thrown(games, finals=games)
    assert [(t.loser, t.winner) for t in verdict.flagged if t.loser == "b0"] == [("b0", "b1")]


def test_a_bot_losing_to_everyone_keeps_its_field_finding_beside_a_flagged_pair():
    """An organiser's trial: a bot that lost 105 of its 119 finals games to every entry was flagged
    against two partners alone (its field's test left out, as for a pair's thrower), each partner
    offered for disqualification with it. Its games with the rest of the field depart from its
    ratings too, so its finding against the field stays; a thrower to one partner, honest with the
    rest, still gets the pair's finding alone (the test above)."""
    kept = 0
    for seed in range(6):
        games = league(random.Random(seed), 6, 8, sandbagger="b0")
        flagged = thrown(games, finals=games).flagged
        kept += ("b0", FIELD) in [(t.loser, t.winner) for t in flagged]
        assert not any(t.loser != "b0" for t in flagged), seed
    assert kept == 6
    for seed in range(6):
        games = league(random.Random(seed), 8, 8, thrower=("b0", "b1"))
        assert [(t.loser, t.winner) for t in thrown(games, finals=games).flagged if t.loser == "b0"] == [("b0", "b1")]


def test_draws_are_set_aside_and_few_games_are_not_tested():
    s = Skill(25.0, 2.0)
    games = [Game(1, "a", "b", None, s, s), Game(2, "a", "b", 2, s, s), Game(3, "a", "b", 2, s, s)]
    tests = {(t.loser, t.winner): t for t in pair_tests(games)}
    assert tests[("a", "b")].games == 2 and tests[("a", "b")].draws == 1 and tests[("a", "b")].losses == 2
    assert tests[("b", "a")].losses == 0 and tests[("b", "a")].p_value == 1.0
    assert thrown(games).tested == 0 and thrown(games).flagged == []


def test_honest_leagues_are_flagged_at_no_more_than_the_stated_rate():
    """200 honest leagues (true skills, the ladder's own ratings before each game): a league with any
    pair flagged is a false alarm; at alpha = 0.01 a few percent at most (the bound is for
    calibrated ratings; these are the ladder's estimates, sigma included)."""
    rng = random.Random(2026)
    alarms = sum(bool(thrown(league(rng, 6, 5)).flagged) for _ in range(200))
    assert alarms <= 4, f"{alarms} of 200 honest leagues flagged"
    # as a season's finals (each entry against the field too, in the same family)
    rng = random.Random(2027)
    finals = [league(rng, 6, 5) for _ in range(200)]
    alarms = sum(bool(thrown(games, finals=games).flagged) for games in finals)
    assert alarms <= 4, f"{alarms} of 200 honest finals flagged"
    # and at a looser alpha the rate still stays near it
    rng = random.Random(11)
    loose = sum(bool(thrown(league(rng, 6, 5), alpha=0.1).flagged) for _ in range(100))
    assert loose <= 20, f"{loose} of 100 honest leagues flagged at alpha 0.1"
