"""Thrown games from the database: finished ranked and finals matches read as plain games (each
seat's bot and its rating before the game), tested by `integrity.logic.collusion`, returned as
findings of kind "collusion" (subjects: the owners' usernames, the loser's first;
docs/integrity.md, "Thrown games").

A side is a bot (all its versions): a thrower that uploads a new version keeps throwing as the
same side. Each seat keeps its rating before the game (`Participant.mu_before`, ladder and finals
alike); a seat without one (a match recorded before ratings were kept) is rated at its version's
current ladder rating, which the finding's evidence counts, and a seat with neither is left out.
With a season: its game's ranked matches made while it was open, and its finals, tested as one
family; without: every ranked match.

**At scale** (a season of 1,000,000 matches) the games are not read one by one: the database adds
up each pair's decisive games, losses, chances of losing (each seat's kept `expected`, else the
model's chance from the two ratings, its normal CDF approximated in SQL), their smallest and the
sum of their logarithms (`pair_sums`, one GROUP BY); Tarone's K and the pairs that could be
flagged come from those sums (`logic.screen`, bounds that never drop a pair the exact test
would flag), and only those pairs' games are read (by each seat's bot and opponent) and tested
exactly as before. With a season, each finals entry's test against the field (all its finals
games, `logic.field_tests`) is screened the same way from sums added up per bot (`field_sums`),
in the same family.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from armada_web.bots.models import Bot
from armada_web.integrity.logic import collusion as logic
from armada_web.integrity.logic import screen as screening
from armada_web.integrity.logic.findings import Finding, ranked
from armada_web.ladder.logic.ratings import BETA, Skill
from armada_web.ladder.models import Rating
from armada_web.matches.models import MatchKind, MatchStatus, Participant, Result
from armada_web.seasons.models import Season

KIND = "collusion"
#: Pairs of bots whose games one query reads.
PAIRS_PER_QUERY = 200


def _seats(season: Season | None, *, finals_only: bool = False) -> Any:
    seats = Participant.objects.filter(match__status=MatchStatus.FINISHED, bot__isnull=False)
    if finals_only:  # the field tests' scope: a season's finals (none without a season)
        return seats.filter(match__kind=MatchKind.FINALS, match__finals_game__season=season)
    if season is None:
        return seats.filter(match__kind=MatchKind.RANKED)
    # Ranked play while it was open: to its planned close, or to its close by hand when earlier
    # (the ladder plays on after it: those games are no season's).
    ended = min(season.closes, season.closed_at or season.closes, timezone.now())
    ranked_play = Q(match__kind=MatchKind.RANKED, match__game=season.game, match__created__gte=season.opens,
                    match__created__lt=ended)
    finals = Q(match__kind=MatchKind.FINALS, match__finals_game__season=season)
    return seats.filter(ranked_play | finals)


def games(*, season: Season | None = None, stale: list[int] | None = None,
          pairs: set[tuple[int, int]] | None = None, sides: set[int] | None = None) -> Iterator[logic.Game]:
    """The finished games to test (see the module), only those of these `pairs` of bots, or of these
    `sides` (bots) against anyone, when given (each seat's bot and opponent: an index range); the
    ids of games rated from current ratings are appended to `stale`. `sides`' games are the season's
    finals' only."""
    if sides is not None:  # (against the field: the season's finals only, `field_sums`)
        ordered_sides = sorted(sides)
        for start in range(0, len(ordered_sides), PAIRS_PER_QUERY):
            chunk = ordered_sides[start:start + PAIRS_PER_QUERY]
            yield from _games(_seats(season, finals_only=True).filter(Q(bot_id__in=chunk) | Q(opponent_id__in=chunk)),
                              stale)
        return
    if pairs is None:
        yield from _games(_seats(season), stale)
        return
    ordered = sorted(pairs)
    for start in range(0, len(ordered), PAIRS_PER_QUERY):
        either = Q()
        for a, b in ordered[start:start + PAIRS_PER_QUERY]:
            either |= Q(bot_id=a, opponent_id=b) | Q(bot_id=b, opponent_id=a)
        yield from _games(_seats(season).filter(either), stale)


def _games(seats: Any, stale: list[int] | None) -> Iterator[logic.Game]:
    rows = (seats.order_by("match_id", "seat")
            .values_list("match_id", "seat", "bot_id", "version_id", "result", "mu_before", "sigma_before"))
    current: dict[int, Skill] = {}
    pending: list[tuple[Any, ...]] = []
    for row in rows.iterator(chunk_size=10_000):
        if pending and pending[0][0] != row[0]:
            pending = []
        pending.append(row)
        if len(pending) != 2:
            continue
        first, second = pending
        skills = [_skill(seat, current) for seat in (first, second)]
        if skills[0] is None or skills[1] is None or first[2] == second[2]:
            continue
        if (first[5] is None or second[5] is None) and stale is not None:
            stale.append(first[0])
        winner = 1 if first[4] == Result.WIN else 2 if second[4] == Result.WIN else None
        yield logic.Game(first[0], str(first[2]), str(second[2]), winner, skills[0], skills[1])


def _skill(seat: tuple[Any, ...], current: dict[int, Skill]) -> Skill | None:
    _, _, _, version_id, _, mu, sigma = seat
    if mu is not None and sigma is not None:
        return Skill(mu, sigma)
    if version_id is None:
        return None
    if version_id not in current:
        rating = Rating.objects.filter(version_id=version_id).values_list("mu", "sigma").first()
        if rating is None:
            return None
        current[version_id] = Skill(*rating)
    return current[version_id]


def thrown_games(*, season: Season | None = None, alpha: float = logic.ALPHA,
                 min_games: int = logic.MIN_GAMES) -> list[Finding]:
    """The pairs of bots whose results depart from their ratings at family-wise false-alarm rate
    `alpha`, as findings, most significant first."""
    sides = pair_sums(season=season, min_games=min_games) + field_sums(season=season, min_games=min_games)
    screen = screening.screen(sides, alpha=alpha)
    candidates = set(screen.candidates)
    stale: list[int] = []
    suspects = {(int(loser), int(winner)) for loser, winner in candidates if winner != logic.FIELD}
    tests = [t for t in logic.pair_tests(games(season=season, stale=stale, pairs=suspects), min_games=min_games)
             if (t.loser, t.winner) in candidates] if suspects else []
    fielded = {int(loser) for loser, winner in candidates if winner == logic.FIELD}
    if fielded:
        tests += logic.field_tests(games(season=season, stale=stale, sides=fielded),
                                   sides={str(pk) for pk in fielded}, min_games=min_games)
    verdict = logic.flag(tests, alpha=alpha, tested=screen.tested, counted=screen.counted)
    bots = {str(pk): (name, owner or "(deleted)") for pk, name, owner in Bot.objects.filter(
        pk__in={int(side) for t in verdict.flagged for side in (t.loser, t.winner) if side != logic.FIELD}
    ).values_list("pk", "name", "owner__username")}
    stale_ids = set(stale)
    return ranked([finding(t, verdict, bots, stale_ids) for t in verdict.flagged])


#: erfc(z) for z >= 0 as Numerical Recipes' `erfcc` (Chebyshev; relative error below 1.2e-7), in SQL
#: that PostgreSQL and SQLite both run (`{z}` and `{t}` = 1 / (1 + z / 2) are column names).
_ERFC = ("{t} * exp(-{z} * {z} - 1.26551223 + {t} * (1.00002368 + {t} * (0.37409196 + {t} * (0.09678418 + "
         "{t} * (-0.18628806 + {t} * (0.27886807 + {t} * (-1.13520398 + {t} * (1.48851587 + {t} * (-0.82215223 + "
         "{t} * 0.17087277)))))))))")
#: The smallest chance whose logarithm is taken, and the z past which erfc is taken at that z
#: (PostgreSQL's exp raises on an underflow; erfc(26) is about 1e-296).
_TINY = 1e-300
_Z_MAX = 26.0


def _pair_sql(season: Season | None, min_games: int) -> tuple[str, list[Any]]:
    """The GROUP BY of `pair_sums` and its parameters (`_chances` then the sums per pair)."""
    sql, params = _chances(season)
    sql += f"""
    SELECT a, b, SUM(decisive), SUM(CASE WHEN decisive = 1 AND a_won = 0 THEN 1 ELSE 0 END),
           SUM(CASE WHEN decisive = 1 AND a_won = 1 THEN 1 ELSE 0 END),
           SUM(CASE WHEN decisive = 1 THEN ca ELSE 0 END), SUM(CASE WHEN decisive = 1 THEN cb ELSE 0 END),
           MIN(CASE WHEN decisive = 1 THEN ca END), MIN(CASE WHEN decisive = 1 THEN cb END),
           SUM(CASE WHEN decisive = 1 THEN ln(CASE WHEN ca > {_TINY!r} THEN ca ELSE {_TINY!r} END) ELSE 0 END),
           SUM(CASE WHEN decisive = 1 THEN ln(CASE WHEN cb > {_TINY!r} THEN cb ELSE {_TINY!r} END) ELSE 0 END)
    FROM chance GROUP BY a, b HAVING SUM(decisive) >= %s"""  # noqa: S608
    return sql, [*params, max(min_games, 0)]


def _field_sql(season: Season | None, min_games: int) -> tuple[str, list[Any]]:
    """The GROUP BY of `field_sums`: each game twice, once per side, summed per bot with decisive
    games against two opponents or more (with one, it is its pair's test)."""
    sql, params = _chances(season, finals_only=True)
    sql += f"""
    , side AS (
        SELECT a AS bot, b AS other, decisive, 1 - a_won AS lost, ca AS c FROM chance
        UNION ALL
        SELECT b AS bot, a AS other, decisive, a_won AS lost, cb AS c FROM chance)
    SELECT bot, SUM(decisive), SUM(CASE WHEN decisive = 1 THEN lost ELSE 0 END),
           SUM(CASE WHEN decisive = 1 THEN c ELSE 0 END), MIN(CASE WHEN decisive = 1 THEN c END),
           SUM(CASE WHEN decisive = 1 THEN ln(CASE WHEN c > {_TINY!r} THEN c ELSE {_TINY!r} END) ELSE 0 END)
    FROM side GROUP BY bot
    HAVING COUNT(DISTINCT CASE WHEN decisive = 1 THEN other END) >= 2 AND SUM(decisive) >= %s"""  # noqa: S608
    return sql, [*params, max(min_games, 1)]


def _chances(season: Season | None, *, finals_only: bool = False) -> tuple[str, list[Any]]:
    """The WITH clauses both sums read: every game in scope as (a, b) with a < b, decisive or not,
    whether a won, and each side's chance of losing it (`chance`)."""
    seats = _seats(season, finals_only=finals_only).order_by().values(
        "match_id", "seat", "bot_id", "version_id", "result", "mu_before", "sigma_before", "expected")
    scope, params = seats.query.sql_with_params()
    rating = connection.ops.quote_name(Rating._meta.db_table)
    win = Result.WIN.value
    # Only the ORM's own SQL, a quoted table name and constants are put in; values go as parameters.
    sql = f"""
    WITH seat AS ({scope}),
    rated AS (
        SELECT s.match_id, s.seat, s.bot_id, s.result,
               CASE WHEN s.mu_before IS NOT NULL AND s.sigma_before IS NOT NULL THEN s.mu_before ELSE r.mu END AS mu,
               CASE WHEN s.mu_before IS NOT NULL AND s.sigma_before IS NOT NULL THEN s.sigma_before
                    ELSE r.sigma END AS sigma,
               CASE WHEN s.mu_before IS NOT NULL AND s.sigma_before IS NOT NULL THEN s.expected END AS expected
        FROM seat s LEFT JOIN {rating} r ON r.version_id = s.version_id),
    game AS (
        SELECT CASE WHEN one.bot_id < two.bot_id THEN one.bot_id ELSE two.bot_id END AS a,
               CASE WHEN one.bot_id < two.bot_id THEN two.bot_id ELSE one.bot_id END AS b,
               CASE WHEN one.result = %s OR two.result = %s THEN 1 ELSE 0 END AS decisive,
               CASE WHEN (one.bot_id < two.bot_id AND one.result = %s)
                         OR (one.bot_id > two.bot_id AND one.result <> %s AND two.result = %s) THEN 1 ELSE 0 END
                   AS a_won,
               CASE WHEN one.bot_id < two.bot_id THEN two.expected ELSE one.expected END AS a_kept,
               CASE WHEN one.bot_id < two.bot_id THEN one.expected ELSE two.expected END AS b_kept,
               (CASE WHEN one.bot_id < two.bot_id THEN two.mu - one.mu ELSE one.mu - two.mu END)
                   / sqrt({2 * BETA * BETA!r} + one.sigma * one.sigma + two.sigma * two.sigma) AS x
        FROM rated one JOIN rated two ON two.match_id = one.match_id AND one.seat = 1 AND two.seat = 2
        WHERE one.mu IS NOT NULL AND two.mu IS NOT NULL AND one.sigma IS NOT NULL AND two.sigma IS NOT NULL
              AND one.bot_id <> two.bot_id),
    halfway AS (
        SELECT a, b, decisive, a_won, a_kept, b_kept, x, z, 1.0 / (1.0 + z / 2.0) AS t
        FROM (SELECT game.*, CASE WHEN abs(x) / sqrt(2.0) > {_Z_MAX!r} THEN {_Z_MAX!r} ELSE abs(x) / sqrt(2.0) END AS z
              FROM game) capped),
    tail AS (
        SELECT a, b, decisive, a_won, a_kept, b_kept, x, 0.5 * {_ERFC.format(z="z", t="t")} AS small FROM halfway),
    chance AS (
        SELECT a, b, decisive, a_won,
               COALESCE(a_kept, CASE WHEN x < 0 THEN small ELSE 1.0 - small END) AS ca,
               COALESCE(b_kept, CASE WHEN x < 0 THEN 1.0 - small ELSE small END) AS cb
        FROM tail)"""  # noqa: S608
    return sql, [*params, win, win, win, win, win]


def pair_sums(*, season: Season | None = None, min_games: int = logic.MIN_GAMES) -> list[screening.Side]:
    """Both directions of every pair of bots with at least `min_games` decisive games in scope,
    each with the sums the screen needs (added up by the database: no game is read here)."""
    sql, params = _pair_sql(season, min_games)
    sides = []
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for a, b, decisive, a_lost, b_lost, a_exp, b_exp, a_min, b_min, a_log, b_log in cursor.fetchall():
            a_least, b_least = (1.0, 1.0) if not decisive else (float(a_min), float(b_min))
            sides.append(screening.Side(str(a), str(b), decisive, a_lost, float(a_exp), a_least, float(a_log)))
            sides.append(screening.Side(str(b), str(a), decisive, b_lost, float(b_exp), b_least, float(b_log)))
    return sides


def field_sums(*, season: Season | None = None, min_games: int = logic.MIN_GAMES) -> list[screening.Side]:
    """Each entry's side against the field (`logic.FIELD`) in `season`'s finals: its decisive finals
    games against every opponent, at least two opponents and `min_games` games, with the sums the
    screen needs (one GROUP BY); none without a season. Not over ranked play: summed over hundreds
    of ladder games, a rating's small honest misses look like throwing (on the scale seed five
    honest bots of 10,000 were flagged so), and losing ladder games wins nothing."""
    if season is None:
        return []
    sql, params = _field_sql(season, min_games)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [screening.Side(str(bot), logic.FIELD, decisive, lost, float(expected),
                               1.0 if not decisive else float(least), float(logs))
                for bot, decisive, lost, expected, least, logs in cursor.fetchall()]


def finding(test: logic.PairTest, verdict: logic.Verdict, bots: dict[str, tuple[str, str]],
            stale: set[int]) -> Finding:
    """A flagged pair as a finding: the games and the test's figures are the evidence."""
    loser = bots.get(test.loser, ("?", "(deleted)"))
    figures = (f"where {'its' if test.winner == logic.FIELD else 'their'} ratings predicted {test.expected:.1f} "
               f"losses (p = {test.p_value:.2g}, {test.adjusted:.2g} over {verdict.counted} tests; false-alarm rate "
               f"{verdict.alpha:g})")
    if test.winner == logic.FIELD:  # a bot that lost to everyone alike
        reason = (f"{loser[0]} ({loser[1]}) lost {test.losses} of its {test.games} decisive games, against every "
                  f"bot it met, {figures}")
        return Finding(KIND, (loser[1],), 1.0 - test.adjusted, reason, _evidence(test, verdict, stale, [test.loser]))
    winner = bots.get(test.winner, ("?", "(deleted)"))
    reason = (f"{loser[0]} ({loser[1]}) lost {test.losses} of {test.games} decisive games to {winner[0]} "
              f"({winner[1]}) {figures}")
    if any(t.loser == test.loser and t.winner == logic.FIELD for t in verdict.flagged):
        # it loses to the rest of the field too: this partner may be innocent (an organiser's trial)
        reason += (f"; {loser[0]} also lost more than its ratings predicted to the rest of the field (its finding "
                   f"against the field): it may be losing to everyone, not to {winner[0]} alone")
    return Finding(KIND, (loser[1], winner[1]), 1.0 - test.adjusted, reason,
                   _evidence(test, verdict, stale, [test.loser, test.winner]))


def _evidence(test: logic.PairTest, verdict: logic.Verdict, stale: set[int], sides: list[str]) -> dict[str, Any]:
    """A flagged test's figures and games, as a finding keeps them."""
    return {"bots": [int(side) for side in sides], "games": test.games, "draws": test.draws,
            "losses": test.losses, "expected": round(test.expected, 3), "p_value": test.p_value,
            "adjusted": test.adjusted, "alpha": verdict.alpha, "pairs_tested": verdict.tested,
            "pairs_counted": verdict.counted, "matches": list(test.match_ids), "lost": list(test.lost),
            "rated_from_current": sorted(stale.intersection(test.match_ids))}
