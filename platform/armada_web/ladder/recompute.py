"""Recompute every rating from the match history alone (`manage.py recompute_ratings`).

The finished ranked matches are replayed in the order they finished (then by id) through the
same `ratings.advance` the live updates use, with the same placement rule, so the result equals
the live ratings; after a bug or a rules change it repairs the ladder. Rating rows, the rating
history (RatingChange) and the participants' before/after figures and expected results are rewritten in
one transaction (a voided game's are emptied).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Prefetch

from armada_web.bots.models import BotVersion
from armada_web.games import rated_games
from armada_web.ladder import playing, ratings
from armada_web.ladder.logic import ratings as ratings_logic
from armada_web.ladder.models import Rating, RatingChange
from armada_web.matches.models import Match, MatchKind, MatchStatus, Participant
from armada_web.matches.services import SEAT_SKILL_FIELDS, set_seat_skills


def _placement(version_id: int, rows: dict[int, Rating], info: dict[int, tuple[int, int]],
               last: dict[int, int]) -> tuple[ratings_logic.Skill, bool]:
    """The start of `version_id` (placement_start from the bot's earlier version that has played
    and played last, by `last`, the index of each version's latest game, as ratings.predecessor)
    and whether it comes from such a predecessor (as ratings.ensure_rating)."""
    bot_id, number = info[version_id]
    earlier = [row for other_id, row in rows.items()
               if info[other_id][0] == bot_id and info[other_id][1] < number and row.games > 0]
    best = max(earlier, key=lambda row: (last.get(row.version_id, -1), info[row.version_id][1]), default=None)
    return ratings.start_from(best), best is not None


def recompute() -> dict[str, Any]:
    """Rebuild the ratings; returns {"matches", "versions"}."""
    seats = Participant.objects.order_by("seat")
    games = [game.slug for game in rated_games()]
    history = (Match.objects.filter(kind=MatchKind.RANKED, game__in=games, status=MatchStatus.FINISHED)
               .order_by("finished", "id").prefetch_related(Prefetch("participants", queryset=seats)))
    with transaction.atomic():
        existing = {row.version_id: row for row in Rating.objects.select_for_update().order_by("version_id")}
        info = {v["pk"]: (v["bot_id"], v["number"]) for v in BotVersion.objects.filter(bot__game__in=games)
                .values("pk", "bot_id", "number")}
        rows: dict[int, Rating] = {}
        last: dict[int, int] = {}  # a version's latest game, by its index in the history
        changes: list[RatingChange] = []
        touched: list[Participant] = []
        count = 0
        for match in history:
            players = list(match.participants.all())
            if len(players) != 2 or any(p.version_id is None or p.version_id not in info for p in players):
                continue
            for p in players:
                assert p.version_id is not None
                if p.version_id not in rows:
                    rows[p.version_id] = Rating(version_id=p.version_id, mu=ratings_logic.MU, sigma=ratings_logic.SIGMA)
            one, two = rows[players[0].version_id], rows[players[1].version_id]  # type: ignore[index]
            start = {row.version_id: _placement(row.version_id, rows, info, last)[0]
                     for row in (one, two) if row.games == 0}
            last.update({one.version_id: count, two.version_id: count})
            winner = (match.outcome or {}).get("winner")
            statuses = (players[0].status, players[1].status)
            details = (players[0].detail, players[1].detail)
            result = ratings.advance(one=one, two=two, match_id=match.pk, winner=winner, statuses=statuses,
                                     details=details, start=start)
            for p, row in zip(players, (one, two), strict=True):
                set_seat_skills(seat=p, change=result[p.seat])
                touched.append(p)
                after = result[p.seat].after
                changes.append(RatingChange(version_id=row.version_id, match_id=match.pk, mu=after.mu,
                                            sigma=after.sigma, at=match.finished or match.created, games=row.games))
            count += 1
        fields = ["mu", "sigma", "games", "wins", "draws", "losses", "faults_in_row", "benched", "benched_reason",
                  "placed"]
        for version_id, row in existing.items():
            fresh = rows.get(version_id)
            if fresh is None:  # never finished a ranked game: back to its start (its predecessor's, when it has one)
                begin, placed = (_placement(version_id, rows, info, last) if version_id in info
                                 else (ratings_logic.initial_rating(), False))
                fresh = Rating(version_id=version_id, mu=begin.mu, sigma=begin.sigma, placed=placed)
            for name in fields:
                setattr(row, name, getattr(fresh, name))
        Rating.objects.bulk_update(list(existing.values()), fields, batch_size=500)
        games_of = {v["pk"]: v["bot__game"] for v in BotVersion.objects.filter(pk__in=[
            vid for vid in rows if vid not in existing]).values("pk", "bot__game")}
        Rating.objects.bulk_create([Rating(**{**{f: getattr(row, f) for f in ("version_id", "mu", "sigma", *fields)},
                                              "game": games_of[vid]})
                                    for vid, row in rows.items() if vid not in existing], batch_size=500)
        RatingChange.objects.all().delete()
        RatingChange.objects.bulk_create(changes, batch_size=500)
        Participant.objects.bulk_update(touched, SEAT_SKILL_FIELDS, batch_size=500)
        # A ranked game no longer counted (voided by staff after it finished) shows no rating around it.
        (Participant.objects.filter(match__kind=MatchKind.RANKED, match__game__in=games, mu_before__isnull=False)
         .exclude(match__status=MatchStatus.FINISHED).update(**dict.fromkeys(SEAT_SKILL_FIELDS)))
        playing.repair()
    return {"matches": count, "versions": len(rows)}
