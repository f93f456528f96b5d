"""The behaviour probes: a fixed set of recorded request sequences per game, the answers a bot
gives to them reduced to one hash per turn (its behaviour signature), and the starters' own
signatures (behaviour everyone shares, like the starters' code).

**The probe set** is built at first use, deterministically, from the engines and the SDK's
starter bots (played in this process): for Galaxy, four games between starters (seeds and
pairings below), of which one seat's `init` and first `TURN_REQUESTS` turn requests (scout and
command, fog included, exactly as `armada.referee.rerun.seat_requests` rebuilds them) are kept;
for Mothership Down, whose bot is asked once (MD-11), one `orders` request under each of eight
configurations (total points and bounds varied). `PROBES[game].digest` names the set: a
signature is comparable only with signatures of the same digest (an engine that changes its
requests changes the digest, and every version is probed again).

**An answer's form**: what the replay keeps of it (`armada.replay.recorded_answer`, as `armada
replay --rerun` compares), with Galaxy's fleet orders stably sorted by origin planet (orders of
different planets never interact, GX-10: a rewrite that walks its planets in another order
answers the same), hashed to 8 bytes (0 means no answer: the bot had failed).

**Shared behaviour**: at every position, the answers of the starters and the trivial answers
(no probes, no fleets, Mothership's cheapest legal orders: `Idle`) are everyone's; two bots
that give them agree by default, not by copying.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from armada.bot.galaxy import GalaxyBot
from armada.bot.mothership import MothershipBot, MothershipConfig, Orders
from armada.botspec import builtin_names, starter_class
from armada.drawing import without_debug
from armada.referee.connection import BotConnection
from armada.referee.inprocess import InProcessBot
from armada.referee.match import play_match
from armada.referee.rerun import SeatRequests, answer_all, seat_requests

#: Turn requests kept of each recorded Galaxy game (20 turns of scout and command).
TURN_REQUESTS = 40


@dataclass(frozen=True)
class Recipe:
    """How one probe is recorded: a game between two starters (`seed`, the configuration or None
    for the default), of which `seat`'s `init` and first `keep` turn requests are kept."""

    seed: int
    one: str
    two: str
    seat: int
    keep: int
    config: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return f"{self.one}-{self.two}-{self.seed}-seat{self.seat}"


#: The Mothership configurations probed (each one `orders` request).
MOTHERSHIP_CONFIGS: tuple[dict[str, Any], ...] = (
    {"total_points": 40}, {"total_points": 60}, {"total_points": 80}, {"total_points": 100},
    {"total_points": 130}, {"total_points": 170},
    {"total_points": 100, "fighter_attack": [1, 10], "fighter_defence": [1, 10]},
    {"total_points": 120, "mothership_defence": [10, 30]},
)
_PACK = struct.Struct("<q")


@dataclass(frozen=True)
class Probe:
    """One recorded request sequence: what a bot is sent, and the bot seed it plays with."""

    name: str
    requests: SeatRequests
    bot_seed: int

    @property
    def turns(self) -> list[tuple[int, str]]:
        """(turn, phase) of every request answered (after `init`)."""
        return [(r.turn, r.phase) for r in self.requests.requests if r.message["type"] not in ("init", "end")]


@dataclass(frozen=True)
class ProbeSet:
    """A game's probes, their digest, and the starters' signatures on them."""

    game: str
    probes: tuple[Probe, ...]
    digest: str
    starters: dict[str, tuple[int, ...]]

    @property
    def turns(self) -> list[tuple[str, int, str]]:
        """(probe, turn, phase) of every position of a signature."""
        return [(p.name, turn, phase) for p in self.probes for turn, phase in p.turns]

    def shared(self) -> list[frozenset[int]]:
        """Per position, the answers (hashes) some starter gives: behaviour everyone has."""
        return [frozenset(s[i] for s in self.starters.values() if s[i]) for i in range(len(self.turns))]


class IdleGalaxy(GalaxyBot):
    """Galaxy's trivial answers: no probes, no fleets."""

    name = "Idle"


class IdleMothership(MothershipBot):
    """Mothership's trivial answer: the cheapest legal orders."""

    name = "Idle"

    def orders(self, config: MothershipConfig) -> Orders:
        return Orders.cheapest(config)


#: The name the trivial answers are kept under among the starters' signatures.
IDLE_NAME = "(idle)"


def _fleets_by_origin(answer: Any) -> Any:
    """Galaxy: fleet orders stably sorted by origin (orders of different planets never interact)."""
    if isinstance(answer, dict) and isinstance(answer.get("fleets"), list):
        fleets = answer["fleets"]
        return {**answer, "fleets": sorted(fleets, key=lambda f: str(f.get("from")) if isinstance(f, dict) else "")}
    return answer


@dataclass(frozen=True)
class GameProbes:
    """What is probed of one game: its recipes, the bot giving its trivial answers, and what its
    answers go through before they are compared (None: compared as kept)."""

    recipes: tuple[Recipe, ...]
    idle: type
    canonical: Callable[[Any], Any] | None = None


#: Every probed game (a game of `armada.games.registry` missing here is not probed: a test says so).
GAMES: dict[str, GameProbes] = {
    "galaxy": GameProbes(tuple(Recipe(seed, one, two, seat, TURN_REQUESTS) for seed, one, two, seat in (
        (101, "greedy", "prober", 2), (102, "prober", "greedy", 1), (103, "random", "prober", 2),
        (104, "prober", "random", 1))), IdleGalaxy, _fleets_by_origin),
    "mothership": GameProbes(tuple(Recipe(200 + n, "greedy", "balanced", 1, 1, config)
                                   for n, config in enumerate(MOTHERSHIP_CONFIGS, start=1)), IdleMothership),
}


def starters(game: str) -> list[str]:
    """The SDK's starters of a game: their answers are shared behaviour, like their code."""
    return builtin_names(game)


def _starter(game: str, name: str) -> Any:
    if name == IDLE_NAME:
        return GAMES[game].idle()
    return starter_class(name, game)()


def _recorded(game: str, recipe: Recipe) -> SeatRequests:
    """The requests of one probe: its game played between the starters in this process."""
    bots: dict[int, BotConnection] = {1: InProcessBot(_starter(game, recipe.one)),
                                      2: InProcessBot(_starter(game, recipe.two))}
    outcome = play_match(game, bots, seed=recipe.seed, config=recipe.config, bot_seed_key=b"probe")
    recorded = seat_requests(outcome.replay, recipe.seat)
    turns = [r for r in recorded.requests if r.message["type"] not in ("init", "end")][:recipe.keep]
    return SeatRequests(recorded.game, recipe.seat, recorded.limits, [recorded.requests[0], *turns])


def _probes(game: str) -> tuple[Probe, ...]:
    if game not in GAMES:
        raise ValueError(f"no behaviour probes for the game {game!r}")
    return tuple(Probe(r.name, _recorded(game, r), r.seed) for r in GAMES[game].recipes)


def _digest(probes: tuple[Probe, ...]) -> str:
    text = json.dumps([[p.name, p.bot_seed, [r.message for r in p.requests.requests]] for p in probes],
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def canonical(game: str, answer: Any) -> Any:
    """An answer in the form compared: the replay's, in the game's canonical order."""
    if isinstance(answer, dict):
        answer = without_debug(answer)  # answers kept before drawings were stripped
    form = GAMES[game].canonical
    return answer if form is None else form(answer)


def answer_hash(game: str, answer: Any) -> int:
    """The hash of one answer (never 0); 0 for no answer (None)."""
    if answer is None:
        return 0
    text = json.dumps(canonical(game, answer), sort_keys=True, separators=(",", ":"), default=str)
    value: int = _PACK.unpack(hashlib.blake2b(text.encode(), digest_size=8).digest())[0]
    return value or 1


def signature(game: str, answers: list[Any]) -> tuple[int, ...]:
    """A bot's answers to every probe, in order, as hashes."""
    return tuple(answer_hash(game, a) for a in answers)


def probe_with(probe_set: ProbeSet, connect: Any) -> tuple[list[Any], str]:
    """Every answer of a bot to the probe set, one fresh connection (`connect()`) per probe, and
    the first failure's description ("" when none)."""
    answers: list[Any] = []
    faults = []
    for probe in probe_set.probes:
        got = answer_all(probe.requests, connect(), bot_seed=probe.bot_seed)
        answers.extend(got.answers)
        if got.fault:
            faults.append(f"{probe.name}: {got.fault}")
    return answers, "; ".join(faults)


@cache
def probe_set(game: str) -> ProbeSet:
    """The game's probe set, built once per process (a second or so), with the starters' signatures."""
    probes = _probes(game)
    partial = ProbeSet(game, probes, _digest(probes), {})
    shared = {}
    for name in (*starters(game), IDLE_NAME):
        answers, _fault = probe_with(partial, lambda name=name: InProcessBot(_starter(game, name)))
        shared[name] = signature(game, answers)
    return ProbeSet(game, probes, partial.digest, shared)


def pack(hashes: tuple[int, ...] | list[int]) -> bytes:
    """A signature as bytes (8 per position, little-endian)."""
    return b"".join(_PACK.pack(h) for h in hashes)


def unpack(data: bytes) -> tuple[int, ...]:
    """A packed signature."""
    return tuple(h for (h,) in _PACK.iter_unpack(data))
