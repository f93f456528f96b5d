"""A rated seat's rating change in figures and in one line of words (the match page, the bot page
and the API say the same thing).

A `SeatRating` is what a seat of a rated game kept: its skill before and after, its opponent's
skill before, and the expected result (the model's chance, before the game, that it wins:
`ratings.win_chance`). `explain` words it: "+4.1: beat a bot rated 6 above this bot; this bot had
a 41% chance". Scores are the shown ones (mu - 3 sigma), so the line speaks of what the ladder shows.
The line names its seat "this bot", never "you": the pages keep "you" for the viewer (the YOU
mark on their own bot's seat), and the line is shown beside either seat.
The model can move a score against the result: a near-certain win can cost a few hundredths (the
dynamics term widens sigma more than the game narrows it), and a loss can gain (an uncertain
rating's sigma shrinks faster than its mu falls); the line then says why (docs/ratings.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from armada_web.ladder.logic.ratings import Skill, displayed, win_chance

#: The words of a result ("win", "draw", "loss", as a seat's result is stored).
VERBS = {"win": "beat", "draw": "drew with", "loss": "lost to"}
#: How a line names its own seat.
SEAT = "this bot"
#: A seat's fault (protocol.md's statuses), as the line says it: a forfeit is rated as a loss (arena.md).
FAULTS = {"timeout": "timed out", "crashed": "crashed", "protocol": "broke the protocol",
          "invalid": "gave invalid orders", "memory": "ran out of memory", "output": "wrote too much output"}


@dataclass(frozen=True)
class SeatRating:
    """One seat's rating around one rated game."""

    before: Skill
    after: Skill
    #: The opponent's skill before the game.
    opponent: Skill
    #: The model's chance, before the game, that this seat wins.
    expected: float

    @property
    def score_before(self) -> float:
        return displayed(self.before)

    @property
    def score_after(self) -> float:
        return displayed(self.after)

    @property
    def change(self) -> float:
        """The shown score's change."""
        return self.score_after - self.score_before

    @property
    def gap(self) -> float:
        """The opponent's shown score minus this seat's, before the game."""
        return displayed(self.opponent) - self.score_before


def seat_rating(before: Skill, after: Skill, opponent: Skill, expected: float | None = None) -> SeatRating:
    """A seat's `SeatRating`; the expected result is computed from the two skills before the
    game when it was not kept (matches recorded before it was)."""
    return SeatRating(before, after, opponent, win_chance(before, opponent) if expected is None else expected)


#: A change smaller than this shows as "±0" (it would round to "+0.000" or "-0.000").
NO_CHANGE = 0.0005


def signed(change: float) -> str:
    """A score change with its sign: one decimal, more for a small one ("+4.1", "-0.03", "-0.003"),
    "±0" for one that rounds to nothing."""
    size = abs(change)
    if size < NO_CHANGE:
        return "\u00b10"
    return f"{change:+.1f}" if size >= 0.095 else f"{change:+.2f}" if size >= 0.0095 else f"{change:+.3f}"


def percent(chance: float) -> str:
    """A chance in whole percent, never a certain 0% or 100% ("<1%", ">99%")."""
    whole = round(chance * 100)
    return "<1%" if whole < 1 else ">99%" if whole > 99 else f"{whole}%"


def a_chance(chance: float) -> str:
    """A chance with its article, as said aloud ("a 41% chance", "an 81% chance", "an 8% chance",
    "a <1% chance": less than one)."""
    shown = percent(chance)
    spoken = shown.rstrip("%")
    article = "an" if spoken in ("8", "11", "18") or (len(spoken) == 2 and spoken[0] == "8") else "a"
    return f"{article} {shown} chance"


def forfeit(result: str, status: str, opponent_status: str) -> str:
    """" by forfeit (this bot crashed)" when a fault decided the result, else ""."""
    mine, theirs = FAULTS.get(status), FAULTS.get(opponent_status)
    if result == "loss" and mine:
        return f" by forfeit ({SEAT} {mine})"
    if result == "win" and theirs:
        return f" by forfeit (the opponent {theirs})"
    if result == "draw" and mine and theirs:
        return f" as both forfeited ({SEAT} {mine}, the opponent {theirs})"
    return ""


#: How far from 50% a chance is, in the percentage points shown, before a line between bots shown
#: about the same says why; between bots shown 1 or 2 apart (up to CLOSE), 2 or 3 times as far
#: (settled ratings 1 apart give about 56%, 2 apart about 63%).
EVEN_ODDS = 10
CLOSE = 2


def rated_as(gap: float) -> str:
    """The opponent's shown score against this seat's, in words ("rated 6 above this bot")."""
    whole = round(abs(gap))
    if whole == 0:
        return f"rated about the same as {SEAT}"
    return f"rated {whole} {'above' if gap > 0 else 'below'} {SEAT}"


def explain(rating: SeatRating, result: str, *, status: str = "ok", opponent_status: str = "ok") -> str:
    """One line: the shown score's change, the result against whom, and the chance the model gave
    ("+4.1: beat a bot rated 6 above this bot; this bot had a 41% chance of winning"); a result by forfeit says
    whose fault it was (`status`, `opponent_status`: the seats' protocol statuses); a change against
    the result says why. `result` is "win", "draw" or "loss"."""
    line = (f"{signed(rating.change)}: {VERBS[result]} a bot {rated_as(rating.gap)}"
            f"{forfeit(result, status, opponent_status)}; {SEAT} had {a_chance(rating.expected)} of winning")
    percent_shown = round(rating.expected * 100)
    notes = []
    if round(abs(rating.gap)) and percent_shown != 50 and (rating.gap < 0) == (rating.expected < 0.5):  # they disagree
        # The chance follows mu, the shown order mu - 3 sigma: they disagree only when the seat with
        # the higher mu has the larger sigma. Shown below with the higher mu: its sigma is larger;
        # shown above with the lower mu: this seat's sigma is (a new bot's against a settled one).
        shown, whose, mu = ("below", "its own", "higher") if rating.gap < 0 else ("above", f"{SEAT}'s", "lower")
        notes.append(f"the opponent is shown {shown} {SEAT} for {whose} uncertainty; its mu, which the chance "
                     f"follows, is {mu}")
    elif round(abs(rating.gap)) <= CLOSE and abs(percent_shown - 50) >= EVEN_ODDS * (1 + round(abs(rating.gap))):
        # (a new bot's first game: scores 0.0 and 0.2, mu 25 and 16.5; a new version's raised start:
        # 33.5 against 32.6 at 88%, mu 43.2 against 35): the chance follows mu alone.
        mu = "higher" if rating.expected > 0.5 else "lower"
        close = "about the same" if not round(abs(rating.gap)) else f"only {round(abs(rating.gap))} apart"
        notes.append(f"shown {close} for their uncertainties; {SEAT}'s mu, which the chance follows, is {mu}")
    if result == "win" and rating.change <= -NO_CHANGE:
        notes.append(f"a near-certain win: {SEAT}'s uncertainty grew a little more than the win took away")
    elif result == "loss" and rating.change >= NO_CHANGE:
        notes.append(f"{SEAT}'s rating became more certain faster than it fell")
    if notes:  # one parenthesis, however many things it explains
        line += f" ({'; '.join(notes)})"
    return line
