"""A rated seat's rating change explained (armada_web.ladder.logic.explain): the expected result is the
model's (openskill's `predict_win`), and the one line of words the match page, the bot page and the
API's readers see, for wins, draws and losses against bots above and below, and a score that moves
against the result."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from armada_web.ladder.logic import ratings
from armada_web.ladder.logic.explain import a_chance, explain, percent, rated_as, seat_rating, signed
from armada_web.ladder.logic.ratings import BETA, Skill, after_game, displayed, win_chance


def test_win_chance_is_the_thurstone_mosteller_probability():
    me, other = Skill(30.0, 2.0), Skill(25.0, 3.0)
    by_hand = NormalDist().cdf((30.0 - 25.0) / math.sqrt(2 * BETA ** 2 + 2.0 ** 2 + 3.0 ** 2))
    assert win_chance(me, other) == pytest.approx(by_hand, abs=1e-12)
    assert win_chance(me, other) + win_chance(other, me) == pytest.approx(1.0)
    assert win_chance(me, me) == pytest.approx(0.5)


def test_the_model_calls_an_upset_unlikely():
    """A rated game's upset: the expected result is low, and the winner's score jumps."""
    underdog, favourite = Skill(25.0, 3.0), Skill(31.0, 2.0)
    new, _ = after_game(underdog, favourite, 1)
    rating = seat_rating(underdog, new, favourite)
    assert rating.expected == pytest.approx(win_chance(underdog, favourite)) and rating.expected < 0.3
    assert rating.gap == pytest.approx(displayed(favourite) - displayed(underdog))
    line = explain(rating, "win")
    assert line.startswith(f"+{rating.change:.1f}: beat a bot rated {round(rating.gap)} above this bot; "
                           "this bot had a ")
    assert line.endswith(f"{round(rating.expected * 100)}% chance of winning")


@pytest.mark.parametrize("winner, result, verb", [(1, "win", "beat"), (None, "draw", "drew with"),
                                                  (2, "loss", "lost to")])
@pytest.mark.parametrize("other_mu, where", [(30.0, "above"), (20.0, "below")])
def test_each_result_against_a_bot_above_and_below(winner, result, verb, other_mu, where):
    me, other = Skill(25.0, 2.0), Skill(other_mu, 2.0)
    after, _ = after_game(me, other, winner)
    rating = seat_rating(me, after, other)
    line = explain(rating, result)
    assert f": {verb} a bot rated 5 {where} this bot; this bot had a " in line
    assert line.startswith(signed(rating.change) + ":")
    assert (rating.change > 0) == (result == "win" or (result == "draw" and where == "above"))


@pytest.mark.parametrize("result, status, other, said", [
    ("loss", "timeout", "ok", " by forfeit (this bot timed out); "),
    ("win", "ok", "memory", " by forfeit (the opponent ran out of memory); "),
    ("draw", "protocol", "crashed", " as both forfeited (this bot broke the protocol, the opponent crashed); "),
    ("win", "ok", "ok", "; "), ("loss", "ok", "", "; "),  # played to the end; a status not kept
])
def test_a_forfeit_names_whose_fault_it_was(result, status, other, said):
    rating = seat_rating(Skill(25.0, 2.0), Skill(25.0, 2.0), Skill(25.0, 2.0), expected=0.5)
    line = explain(rating, result, status=status, opponent_status=other)
    assert f"a bot rated about the same as this bot{said}this bot had a 50% chance of winning" in line


def test_the_kept_expected_result_is_used_as_kept():
    rating = seat_rating(Skill(25.0, 2.0), Skill(26.0, 1.9), Skill(25.0, 2.0), expected=0.41)
    assert explain(rating, "win") == ("+1.3: beat a bot rated about the same as this bot; "
                                      "this bot had a 41% chance of winning")


def test_bots_shown_alike_at_uneven_odds_say_why():
    """A competitor's trial: a new bot's first game read "drew with a bot rated about the same as this
    bot; this bot had a 77% chance of winning" (scores 0.0 and 0.2, mu 25 and 16.5), with no word of why."""
    new = seat_rating(Skill(25.0, 8.33), Skill(23.0, 7.0), Skill(16.5, 5.45), expected=0.77)
    assert explain(new, "draw").endswith("this bot had a 77% chance of winning (shown about the same for their "
                                         "uncertainties; this bot's mu, which the chance follows, is higher)")
    settled = seat_rating(Skill(16.5, 5.45), Skill(18.0, 5.2), Skill(25.0, 8.33), expected=0.23)
    assert explain(settled, "draw").endswith("a 23% chance of winning (shown about the same for their "
                                             "uncertainties; this bot's mu, which the chance follows, is lower)")
    assert "uncertaint" not in explain(seat_rating(Skill(25.0, 2.0), Skill(26.0, 1.9), Skill(25.0, 2.0),
                                                   expected=0.41), "win")  # close to even: nothing to explain
    even = seat_rating(Skill(25.0, 1.0), Skill(25.2, 1.0), Skill(25.1, 2.0), expected=0.497)
    assert "rated 3 below this bot" in explain(even, "draw")
    assert explain(even, "draw").endswith("a 50% chance of winning")  # shown at 50%: nothing to explain (a trial's #85)
    # A trial: a new version's first game (its start raised above its predecessor's) read "drew with a
    # bot rated 1 below this bot; this bot had an 88% chance of winning" with no word of why.
    raised = seat_rating(Skill(43.2, 3.22), Skill(42.9, 3.1), Skill(38.0, 1.8), expected=0.88)
    assert round(raised.gap) == -1
    assert explain(raised, "draw").endswith("an 88% chance of winning (shown only 1 apart for their "
                                            "uncertainties; this bot's mu, which the chance follows, is higher)")
    settled_pair = seat_rating(Skill(30.0, 1.5), Skill(30.3, 1.5), Skill(31.0, 1.5))  # 1 apart, settled: ~44%
    assert 0.3 < settled_pair.expected < 0.5 and "uncertaint" not in explain(settled_pair, "win")
    for shown_60 in (0.6, 0.5996):  # 10 points as the line shows them (a review: 0.6 - 0.5 < 0.1 in floats)
        rating = seat_rating(Skill(25.0, 8.33), Skill(23.0, 7.0), Skill(16.5, 5.45), expected=shown_60)
        assert "60% chance of winning (shown about the same" in explain(rating, "draw")


def test_a_near_certain_win_can_cost_a_little_and_says_why():
    """With the ladder's numbers (sigma near 1.1 when settled), a win over a bot 15 mu below moves mu
    less than the dynamics term (TAU) widens sigma: the shown score falls by a few thousandths."""
    me, other = Skill(45.0, 1.1), Skill(30.0, 1.1)
    after, _ = after_game(me, other, 1)
    rating = seat_rating(me, after, other)
    assert after.mu > me.mu and after.sigma > me.sigma and -0.01 < rating.change < 0
    line = explain(rating, "win")
    assert line.startswith(f"{rating.change:+.3f}: beat a bot rated 15 below this bot; "
                           "this bot had a 99% chance of winning")
    assert "uncertainty grew" in line


def test_a_loss_can_gain_when_the_rating_becomes_more_certain():
    """A new bot (sigma 8.3) losing to a settled strong one: mu falls 1, sigma falls 0.7, so mu - 3 sigma rises."""
    new, strong = ratings.initial_rating(), Skill(40.0, 1.1)
    _, after = after_game(strong, new, 1)
    rating = seat_rating(new, after, strong)
    assert after.mu < new.mu and rating.change > 0.5
    assert explain(rating, "loss").startswith(f"+{rating.change:.1f}: lost to a bot rated 37 above this bot")
    assert "more certain" in explain(rating, "loss")


def test_figures_in_words():
    assert [signed(x) for x in (4.14, -2.0, 0.03, -0.004, 0.096)] == ["+4.1", "-2.0", "+0.03", "-0.004", "+0.1"]
    # a change that rounds to nothing is no change (a trial saw "-0.000: lost to ...")
    assert [signed(x) for x in (-0.0004, 0.0, 0.00049, 0.0005)] == ["\u00b10", "\u00b10", "\u00b10", "+0.001"]
    assert [percent(x) for x in (0.41, 0.004, 0.999, 0.5)] == ["41%", "<1%", ">99%", "50%"]
    assert [rated_as(x) for x in (6.2, -0.4, -3.6)] == ["rated 6 above this bot", "rated about the same as this bot",
                                                        "rated 4 below this bot"]


def test_a_line_says_when_the_shown_order_and_the_chance_disagree() -> None:
    # An organiser read "+2.2: drew with a bot rated 3 below you; you had a 42% chance of winning" as a bug:
    # the opponent is shown lower (larger sigma) but has the higher mu, which the chance follows.
    mine, theirs = Skill(24.0, 1.0), Skill(26.0, 2.5)  # shown 21.0 and 18.5
    rating = seat_rating(mine, Skill(24.5, 0.9), theirs)
    assert rating.gap < 0 and rating.expected < 0.5
    line = explain(rating, "draw")
    assert ": drew with a bot rated 2 below this bot; this bot had a " in line
    assert line.endswith("(the opponent is shown below this bot for its own uncertainty; its mu, which the chance "
                         "follows, is higher)")
    agreeing = explain(seat_rating(Skill(26.0, 1.0), Skill(26.2, 1.0), Skill(24.0, 1.0)), "win")
    assert "uncertainty" not in agreeing  # shown below and the underdog: nothing to explain


def test_shown_above_with_the_lower_mu_is_this_seats_uncertainty() -> None:
    # A new bot (mu 25, sigma 8.33, shown 0) drew with a settled one (mu 24.0, sigma 2.65, shown 16):
    # the settled bot is shown above it only because the new bot's own sigma is large, so the line
    # must not blame the opponent's uncertainty (it once said "for its uncertainty" here).
    new, settled = Skill(25.0, 25.0 / 3), Skill(24.04, 2.65)
    after, _ = after_game(new, settled, None)
    rating = seat_rating(new, after, settled)
    assert rating.gap > 0 and rating.expected > 0.5
    line = explain(rating, "draw")
    assert ": drew with a bot rated 16 above this bot; this bot had a 54% chance of winning" in line
    assert line.endswith("(the opponent is shown above this bot for this bot's uncertainty; its mu, which the "
                         "chance follows, is lower)")
    # and the settled bot's own line keeps "its": the new bot is below it for the new bot's sigma
    other = explain(seat_rating(settled, settled, new), "draw")
    assert other.endswith("(the opponent is shown below this bot for its own uncertainty; its mu, which the chance "
                          "follows, is higher)")


def test_a_chance_takes_the_article_it_is_read_with() -> None:
    # "you had a 81% chance of winning" was shown on match 282's page: 8, 11, 18 and 80-89 are read with "an".
    assert [a_chance(x) for x in (0.81, 0.08, 0.11, 0.18, 0.889)] == [
        "an 81% chance", "an 8% chance", "an 11% chance", "an 18% chance", "an 89% chance"]
    assert [a_chance(x) for x in (0.41, 0.8e-2 / 2, 0.999, 0.5, 0.01, 0.9)] == [
        "a 41% chance", "a <1% chance", "a >99% chance", "a 50% chance", "a 1% chance", "a 90% chance"]
    line = explain(seat_rating(Skill(30.0, 1.0), Skill(30.0, 1.0), Skill(25.3, 1.0), 0.81), "draw")
    assert line.endswith("; this bot had an 81% chance of winning")


def test_two_reasons_share_one_parenthesis() -> None:
    """A trial saw "...is lower) (this bot's rating became ...)": both reasons now in one parenthesis."""
    me, opponent = Skill(21.0, 8.0), Skill(20.0, 1.0)  # higher mu, shown 20 below for its sigma
    _, after = after_game(opponent, me, 1)
    rating = seat_rating(me, after, opponent)
    assert rating.change > 0
    line = explain(rating, "loss")
    assert line.endswith("(the opponent is shown above this bot for this bot's uncertainty; its mu, which the chance "
                         "follows, is lower; this bot's rating became more certain faster than it fell)")
    assert line.count("(") == 1


def test_a_change_too_small_to_show_gives_no_reason_against_the_result() -> None:
    rating = seat_rating(Skill(30.0, 1.1), Skill(30.0003, 1.1001), Skill(20.0, 1.1), expected=0.99)
    assert explain(rating, "win").startswith("\u00b10: beat a bot rated 10 below this bot")
    assert "uncertainty grew" not in explain(rating, "win")
