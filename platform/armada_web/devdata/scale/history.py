"""A season of Galaxy matches drawn from the world's hidden skills, rated as the ladder rates them.

Matches are spread evenly over the season (a ladder's throughput is its workers', whatever the
number of bots). The season is cut into epochs; in each, the playing versions are those the
world says were uploaded and valid by then, ordered by their current mu, and a ranked match
pairs a random one with a near neighbour of another owner (what matchmaking does), except a
share that goes to the busiest bot (a sparring partner everyone meets, the "bot with 50,000
games" a site must still show quickly). The winner comes from the two hidden skills plus each
side's noise; a few losers fault (a forfeit), a few games are drawn. Every finished ranked match
goes through `ladder.ratings.advance`, the function the live update and
`recompute_ratings` use, so the ratings, the history and each seat's before/after are exactly
what the site would have recorded. A few matches are challenges (unrated), void or failed; the
newest are still queued or running.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from armada_web.devdata.scale.bulk import Ids
from armada_web.devdata.scale.world import Version, World
from armada_web.games import spec
from armada_web.ladder.logic import ratings
from armada_web.ladder.logic.ratings import Skill
from armada_web.ladder.models import Rating, RatingChange
from armada_web.ladder.ratings import advance
from armada_web.matches.models import Match, MatchKind, MatchStatus, Participant, Result

CHALLENGE_SHARE = 0.03
VOID_SHARE = 0.008
FAILED_SHARE = 0.002
IN_FLIGHT = (MatchStatus.QUEUED, MatchStatus.QUEUED, MatchStatus.RUNNING)  # the newest matches
DRAW_MARGIN = 0.25  # performance difference under which a game is drawn (about 3 %)
FAULT_SHARE = 0.02  # losers that lose by their own fault
NEIGHBOURS = 12  # how far along the mu order an opponent is looked for
FAULTS = (("crashed", "the bot exited with status 1"), ("timeout", "no reply within the turn's time"),
          ("protocol", "the reply was not one JSON object"))


@dataclass
class Plan:
    """What each match is: kind and status, decided before any is played."""

    kinds: list[str]
    statuses: list[str]

    @classmethod
    def draw(cls, rng: random.Random, count: int) -> Plan:
        kinds: list[str] = []
        statuses: list[str] = []
        for index in range(count):
            roll = rng.random()
            kind: str = MatchKind.CHALLENGE if roll < CHALLENGE_SHARE else MatchKind.RANKED
            status: str = MatchStatus.FINISHED
            if roll > 1 - VOID_SHARE:
                status = MatchStatus.VOID
            elif roll > 1 - VOID_SHARE - FAILED_SHARE:
                status = MatchStatus.FAILED
            if index >= count - len(IN_FLIGHT):
                kind, status = MatchKind.RANKED, IN_FLIGHT[index - (count - len(IN_FLIGHT))]
            kinds.append(kind)
            statuses.append(status)
        return cls(kinds, statuses)

    def newest_rated(self, count: int) -> set[int]:
        """The indexes of the newest `count` finished ranked matches (they keep their replays)."""
        found: set[int] = set()
        for index in range(len(self.kinds) - 1, -1, -1):
            if len(found) >= count:
                break
            if self.kinds[index] == MatchKind.RANKED and self.statuses[index] == MatchStatus.FINISHED:
                found.add(index)
        return found


def _second_owner(events: list[tuple[datetime, int, Version]]) -> datetime | None:
    """When a second owner's version first played (a ranked match needs two owners)."""
    owners: set[int] = set()
    for at, _, version in events:
        owners.add(version.bot.owner_id)
        if len(owners) >= 2:
            return at
    return None


@dataclass
class Played:
    """A finished game as a replay recorded it (the newest matches are really played)."""

    winner: int | None
    outcome: dict[str, Any]
    statuses: tuple[str, str]
    details: tuple[str, str]
    replay: str
    logs: tuple[str, str]


#: Plays a real game: (match id, seed, seat 1's name, seat 2's name) -> Played.
Player = Callable[[int, int, str, str], Played]


@dataclass
class Chunk:
    """The rows of one epoch's matches."""

    matches: list[dict[str, Any]] = field(default_factory=list)
    participants: list[dict[str, Any]] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class History:
    """The matches of a world and the ratings they leave."""

    world: World
    rng: random.Random
    ids: Ids
    game: str
    busiest_share: float
    play: Player
    replays: int
    ratings: dict[int, Rating] = field(default_factory=dict)
    benched: set[int] = field(default_factory=set)
    #: Tallies: bot id -> [matches, wins, draws, losses]; (bot, opponent) -> [wins, draws, losses, last match id].
    records: dict[int, list[int]] = field(default_factory=dict)
    pairs: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    _change_id: int = 0

    def chunks(self, count: int) -> Iterator[Chunk]:
        """`count` matches, one chunk of rows per epoch, oldest first."""
        plan = Plan.draw(self.rng, count)
        real = plan.newest_rated(self.replays)
        engine = str(spec(self.game).engine.engine_version)[:40]
        events = sorted(((v.created, v.id, v) for bot in self.world.galaxy for v in bot.versions if v.valid),
                        key=lambda e: (e[0], e[1]))
        first = _second_owner(events) or self.world.start
        span = (self.world.end - first).total_seconds()
        epochs = max(1, min(1000, count // 100))
        busiest = min(self.world.galaxy, key=lambda b: (b.created, b.id), default=None)
        playing: dict[int, Version] = {}
        pointer = 0
        match_id = self.ids.take(Match, count)
        participant_id = self.ids.take(Participant, 2 * count)
        self._change_id = self.ids.take(RatingChange, 2 * count)
        index = 0
        for epoch in range(epochs):
            stop = count * (epoch + 1) // epochs
            epoch_start = first + timedelta(seconds=span * index / max(count, 1))
            while pointer < len(events) and events[pointer][0] <= epoch_start:
                version = events[pointer][2]
                playing[version.bot.id] = version
                pointer += 1
            pool = sorted((v for v in playing.values() if v.id not in self.benched),
                          key=lambda v: (self._mu(v), v.id))
            sparring = playing.get(busiest.id) if busiest is not None else None
            if sparring is not None and sparring.id in self.benched:
                sparring = None
            chunk = Chunk()
            while index < stop:
                at = first + timedelta(seconds=span * (index + 0.5) / count)
                pair = self._pair(pool, plan.kinds[index], sparring)
                if pair is not None:
                    self._match(chunk, match_id, participant_id, at, pair, plan.kinds[index],
                                plan.statuses[index], engine, index in real)
                    match_id += 1
                    participant_id += 2
                index += 1
            yield chunk

    def _mu(self, version: Version) -> float:
        row = self.ratings.get(version.id)
        return row.mu if row is not None else ratings.MU

    def _pair(self, pool: list[Version], kind: str, sparring: Version | None) -> tuple[Version, Version] | None:
        """Two versions of different owners: a near neighbour in mu (ranked) or anyone (challenge)."""
        if len(pool) < 2:
            return None
        rng = self.rng
        for _ in range(50):
            i = rng.randrange(len(pool))
            seed = pool[i]
            if kind == MatchKind.CHALLENGE:
                other = pool[rng.randrange(len(pool))]
            elif sparring is not None and rng.random() < self.busiest_share:
                if sparring is seed:
                    continue
                other = sparring
            else:
                j = min(max(i + rng.choice((-1, 1)) * rng.randint(1, NEIGHBOURS), 0), len(pool) - 1)
                other = pool[j]
            if other.bot.owner_id != seed.bot.owner_id:
                return (seed, other) if rng.random() < 0.5 else (other, seed)
        seed = pool[rng.randrange(len(pool))]
        found = next((v for v in pool if v.bot.owner_id != seed.bot.owner_id), None)
        return None if found is None else (seed, found)

    def _row(self, version: Version) -> Rating:
        row = self.ratings.get(version.id)
        if row is None:
            row = Rating(version_id=version.id, mu=ratings.MU, sigma=ratings.SIGMA)
            self.ratings[version.id] = row
        return row

    def start_of(self, version: Version) -> Skill:
        """Placement: from the bot's latest earlier version that has played (no version is pinned back
        here, so it is the one that played last, as ladder.ratings.predecessor)."""
        for earlier in reversed(version.bot.versions[: version.number - 1]):
            row = self.ratings.get(earlier.id)
            if row is not None and row.games > 0:
                return ratings.placement_start(Skill(row.mu, row.sigma))
        return ratings.placement_start(None)

    def _result(self, one: Version, two: Version) -> tuple[int | None, dict[str, Any], tuple[str, str],
                                                           tuple[str, str]]:
        rng = self.rng
        diff = one.skill - two.skill + rng.gauss(0, ratings.BETA) - rng.gauss(0, ratings.BETA)
        statuses, details = ["ok", "ok"], ["", ""]
        if abs(diff) < DRAW_MARGIN:
            return None, {"winner": None, "outcome": "draw", "turns": 200,
                          "scores": {"planets": {"1": 8, "2": 8}}}, ("ok", "ok"), ("", "")
        winner = 1 if diff > 0 else 2
        if rng.random() < FAULT_SHARE:
            status, detail = rng.choice(FAULTS)
            turns = rng.randint(1, 120)
            statuses[2 - winner], details[2 - winner] = status, f"{detail} (turn {turns})"
            outcome = "forfeit"
        elif rng.random() < 0.75:
            turns, outcome = rng.randint(20, 180), "elimination"
        else:
            turns, outcome = 200, "turn_limit"
        planets = {str(winner): rng.randint(9, 16), str(3 - winner): 0 if outcome == "elimination" else
                   rng.randint(1, 7)}
        result = {"winner": winner, "outcome": outcome, "turns": turns, "scores": {"planets": planets}}
        return winner, result, (statuses[0], statuses[1]), (details[0], details[1])

    def _match(self, chunk: Chunk, match_id: int, participant_id: int, at: datetime, pair: tuple[Version, Version],
               kind: str, status: str, engine: str, real: bool) -> None:
        one, two = pair
        created = at - timedelta(seconds=40)
        finished = status != MatchStatus.QUEUED and status != MatchStatus.RUNNING
        seed = self.rng.getrandbits(63)
        match: dict[str, Any] = {"id": match_id, "game": self.game, "seed": seed, "kind": kind,
                 "status": status, "attempts": 0 if status == MatchStatus.QUEUED else 1, "worker": "",
                 "requested_by_id": one.bot.owner_id if kind == MatchKind.CHALLENGE else None,
                 "created": created, "queued": created, "started": None, "finished": None, "turns": None,
                 "outcome": None, "replay": "", "engine_version": engine, "reason": ""}
        seats = [{"id": participant_id + s, "match_id": match_id, "version_id": v.id, "bot_id": v.bot.id,
                  "opponent_id": pair[1 - s].bot.id, "name": v.bot.name, "seat": s + 1, "result": "", "status": "",
                  "detail": "", "score": None, "log": ""}
                 for s, v in enumerate(pair)]
        chunk.matches.append(match)
        chunk.participants.extend(seats)
        self._count_made(one.bot.id, two.bot.id)
        if status != MatchStatus.QUEUED:
            match.update(worker="seed-worker@seed-host", host="seed-host", started=created + timedelta(seconds=2))
        if not finished:
            return
        match["finished"] = at
        if status == MatchStatus.VOID:
            match["reason"] = "platform failure: the Docker engine did not answer (ReadTimeout)"
            return
        if status == MatchStatus.FAILED:
            match["reason"] = "failed: no run finished in 3 attempts (workers lost)"
            return
        if real:
            played = self.play(match_id, seed, one.bot.name, two.bot.name)
            if played.winner is not None and (one.skill > two.skill) != (played.winner == 1):
                one, two = two, one  # the better version sits where the game was won
                for seat, version, other in zip(seats, (one, two), (two, one), strict=True):
                    seat.update(version_id=version.id, bot_id=version.bot.id, opponent_id=other.bot.id,
                                name=version.bot.name)
            winner, result, statuses, details = played.winner, played.outcome, played.statuses, played.details
            match["replay"] = played.replay
            for seat, log in zip(seats, played.logs, strict=True):
                seat["log"] = log
        else:
            winner, result, statuses, details = self._result(one, two)
        match.update(turns=result["turns"], outcome=result)
        planets = result.get("scores", {}).get("planets", {})
        for number, seat in enumerate(seats, start=1):
            seat.update(result=Result.DRAW if winner is None else Result.WIN if winner == number else Result.LOSS,
                        status=statuses[number - 1], detail=details[number - 1], score=planets.get(str(number)))
        self._count_result(one.bot.id, two.bot.id, winner, match_id)
        if kind == MatchKind.RANKED:
            self._rate(chunk, match_id, at, (one, two), winner, statuses, details, seats)

    def _rate(self, chunk: Chunk, match_id: int, at: datetime, pair: tuple[Version, Version], winner: int | None,
              statuses: tuple[str, str], details: tuple[str, str], seats: list[dict[str, Any]]) -> None:
        rows = [self._row(v) for v in pair]
        start = {row.version_id: self.start_of(v) for row, v in zip(rows, pair, strict=True) if row.games == 0}
        changes = advance(one=rows[0], two=rows[1], match_id=match_id, winner=winner, statuses=statuses,
                          details=details, start=start)
        for number, (row, seat) in enumerate(zip(rows, seats, strict=True), start=1):
            before, after, expected = changes[number]
            seat.update(mu_before=before.mu, sigma_before=before.sigma, mu_after=after.mu, sigma_after=after.sigma,
                        expected=expected)
            row.last_played = row.due = at
            chunk.changes.append({"id": self._change_id, "version_id": row.version_id, "match_id": match_id,
                                  "mu": after.mu, "sigma": after.sigma, "at": at, "games": row.games})
            self._change_id += 1
            if row.benched:
                self.benched.add(row.version_id)

    def _count_made(self, one: int, two: int) -> None:
        for bot in (one, two):
            self.records.setdefault(bot, [0, 0, 0, 0])[0] += 1

    def _count_result(self, one: int, two: int, winner: int | None, match_id: int) -> None:
        for seat, (bot, other) in enumerate(((one, two), (two, one)), start=1):
            column = 2 if winner is None else 1 if winner == seat else 3
            self.records[bot][column] += 1
            pair = self.pairs.setdefault((bot, other), [0, 0, 0, 0])
            pair[column - 1] += 1
            pair[3] = match_id
