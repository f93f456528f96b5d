"""The referee loop: play one match between two bot connections (`play_match`).

It follows docs/protocol.md: an `init` handshake, then the game's requests, sent to both
seats at once and timed on each seat's own clock (turn limit plus time bank), then `end`
to every bot still running, and `close()` on every connection. A bot's fault (timeout,
crash, bad framing, bad id, line cap, memory, invalid orders) ends the match by forfeit;
nothing a bot does makes `play_match` raise or hang.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any

from armada.games.base import SEATS, Fault, Game, Result, forfeit_result
from armada.referee.clock import Limits, default_limits
from armada.referee.connection import BotConnection
from armada.referee.environment import bot_seed, seed_key
from armada.referee.framing import PROTOCOL_VERSION, clean_name, encode_message, one_line
from armada.referee.seat import Seat, ask_all
from armada.replay import ReplayRecorder, plain

__all__ = ["Limits", "MatchOutcome", "PlayerReport", "default_limits", "play_match"]

#: Seconds a bot gets to exit after `end` and the close of its input (protocol.md).
END_GRACE_S = 1.0
#: How long the referee waits for the `end` lines to be written before closing anyway.
END_SEND_S = 0.5
#: Request keys the referee sets itself; an engine payload cannot override them.
_REFEREE_KEYS = frozenset({"type", "id", "bank_ms"})
#: Extra seconds allowed for a connection's start/close beyond its own timeouts.
CLOSE_SLACK_S = 10.0


@dataclass
class PlayerReport:
    """How one seat did: display name, status (protocol.md "Statuses"), one-line detail, stderr log."""

    seat: int
    name: str
    status: str
    detail: str
    log: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The public part (the log is for the bot's owner only)."""
        return {"seat": self.seat, "name": self.name, "status": self.status, "detail": self.detail}


@dataclass
class MatchOutcome:
    """A finished match: the result, one report per seat, the replay object."""

    result: Result
    players: list[PlayerReport]
    replay: dict[str, Any] = field(repr=False)

    def summary(self) -> dict[str, Any]:
        """The CLI's --json object."""
        return {
            "game": self.replay["game"], "seed": self.replay["seed"], "turns": self.result.turns,
            "winner": self.result.winner, "outcome": self.result.outcome,
            "players": [p.to_dict() for p in self.players],
        }


def resolve_game(game: str | Game) -> Game:
    """An engine from its slug (through the registry), or the engine object itself."""
    if isinstance(game, str):
        from armada.games.registry import get_game

        return get_game(game)
    return game


def _in_threads(calls: dict[Seat, Any], timeout: float) -> None:
    """Run one callable per seat in parallel daemon threads; wait at most `timeout` seconds for all."""
    threads = [threading.Thread(target=call, daemon=True, name=f"armada-seat-{seat.seat}")
               for seat, call in calls.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)


def _start(seats: list[Seat]) -> dict[int, Fault]:
    faults: dict[int, Fault] = {}

    def starter(seat: Seat) -> Any:
        def run() -> None:
            try:
                seat.conn.start()
                seat.started = True
            except Exception as exc:  # BotGone or whatever a connection raises: the bot did not start
                faults[seat.seat] = Fault("crashed", f"could not start: {exc}")
        return run

    _in_threads({seat: starter(seat) for seat in seats}, timeout=600.0)
    for seat in seats:
        if not seat.started and seat.seat not in faults:
            faults[seat.seat] = Fault("crashed", "could not start: the start did not finish")
    return faults


def _handshake(seats: list[Seat], slug: str, config: dict[str, Any], limits: Limits) -> dict[int, Fault]:
    asks = {}
    for seat in seats:
        message = {"type": "init", "id": seat.take_id(), "protocol": PROTOCOL_VERSION, "game": slug,
                   "seat": seat.seat, "config": config, "limits": limits.to_dict()}
        asks[seat] = (message, float(limits.init_ms))
    faults = {}
    for seat, exchange in ask_all(asks).items():
        if exchange.fault is not None:
            faults[seat.seat] = exchange.fault
        elif exchange.reply is not None:
            seat.name = clean_name(exchange.reply.get("name"), seat.conn.label)
    return faults


def _finish(seats: list[Seat], result: Result | None) -> None:
    """Send `end` to every bot still running, then close every connection (in parallel)."""
    if result is not None:
        end = result.to_dict()

        def sender(seat: Seat) -> Any:
            def run() -> None:
                try:
                    if seat.conn.exit_info().returncode is None and seat.conn.exit_info().signal is None:
                        seat.conn.send(encode_message({"type": "end", "id": seat.take_id(), "result": end}))
                except Exception:  # a bot that is gone or not reading does not get its end message
                    return
            return run

        _in_threads({seat: sender(seat) for seat in seats if seat.started}, timeout=END_SEND_S)

    def closer(seat: Seat) -> Any:
        def run() -> None:
            with contextlib.suppress(Exception):  # close must never fail the match
                seat.conn.close(grace=END_GRACE_S)
        return run

    _in_threads({seat: closer(seat) for seat in seats}, timeout=END_GRACE_S + CLOSE_SLACK_S)


def _turns_done(payloads: list[dict[str, Any]]) -> int:
    """Turns completed before a fault in the current step (the request's `turn` minus one, else 0)."""
    for payload in payloads:
        turn = payload.get("turn")
        if isinstance(turn, int) and not isinstance(turn, bool):
            return max(0, turn - 1)
    return 0


def play_match(game: str | Game, bots: dict[int, BotConnection], *, seed: int,
               config: dict[str, Any] | None = None, limits: Limits | None = None,
               start_state: dict[str, Any] | None = None, bot_seed_key: bytes | None = None) -> MatchOutcome:
    """Play one match; start the connections, play, and always close them.

    `game` is a slug or an engine; `bots` maps seats 1 and 2 to unstarted connections. Each
    connection gets its ARMADA_BOT_SEED from `seed` and its seat, keyed with `bot_seed_key`
    (default: ARMADA_BOT_SEED_KEY of this process, none locally).
    Raises ConfigError for a bad configuration and ValueError for bad arguments or a bad
    starting state (before any bot is started); never because of a bot.
    """
    seats: list[Seat] = []
    try:
        engine = resolve_game(game)
        if sorted(bots) != list(SEATS):
            raise ValueError(f"play_match needs one bot for each seat {list(SEATS)}, got seats {sorted(bots)}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        parsed = engine.parse_config(config)
        config_dict = plain(engine.config_to_dict(parsed))
        limits = limits or default_limits(engine)
        recorded_start = plain(start_state) if start_state is not None else None
        state = engine.load_state(start_state) if start_state is not None else engine.initial_state(seed, parsed)
        recorder = ReplayRecorder(engine, seed, config_dict, engine.frame(state), recorded_start)
        key = seed_key() if bot_seed_key is None else bot_seed_key
        for number in SEATS:
            bots[number].bot_seed = bot_seed(seed, number, key)
        seats = [Seat(n, bots[n], limits) for n in SEATS]
    except BaseException:
        for conn in bots.values():
            with contextlib.suppress(Exception):  # the original error is the one to report
                conn.close(grace=0.0)
        raise

    result: Result | None = None
    try:
        faults = _start(seats)
        if not faults:
            faults = _handshake(seats, engine.slug, config_dict, limits)
        payloads: list[dict[str, Any]] = []
        while not faults:
            result = engine.result(state)
            if result is not None:
                break
            requests = engine.requests(state)
            if not requests:
                raise RuntimeError(f"{engine.slug} engine asks nothing but its game is not over")
            by_number = {seat.seat: seat for seat in seats}
            asks = {}
            for number, request in sorted(requests.items()):
                seat = by_number[number]
                game_fields = {k: v for k, v in request.payload.items() if k not in _REFEREE_KEYS}
                message = {"type": request.type, "id": seat.take_id(), **game_fields,
                           "bank_ms": seat.clock.left_ms()}
                asks[seat] = (message, seat.clock.budget_ms())
            payloads = [request.payload for request in requests.values()]
            answers: dict[int, dict[str, Any]] = {}
            for seat, exchange in ask_all(asks).items():
                if exchange.fault is not None:
                    faults[seat.seat] = exchange.fault
                else:
                    seat.clock.charge(exchange.elapsed_ms)
                    answers[seat.seat] = exchange.reply or {}
            if faults:
                break
            step = engine.step(state, answers)
            state = step.state
            phases = {number: request.type for number, request in requests.items()}
            recorder.add_step(phases, payloads[0].get("turn"), answers, step, engine.frame(state))
            faults.update(step.faults)
        if faults:
            for seat in seats:
                if seat.seat in faults:
                    seat.fault = Fault(faults[seat.seat].status, one_line(faults[seat.seat].detail))
            result = forfeit_result(faults, _turns_done(payloads))
    finally:
        _finish(seats, result)

    assert result is not None
    players = []
    for seat in seats:
        try:
            log = seat.conn.log()
        except Exception as exc:
            log = f"[log unavailable: {exc}]"
        status, detail = (seat.fault.status, seat.fault.detail) if seat.fault else ("ok", "")
        players.append(PlayerReport(seat.seat, seat.name, status, detail, log))
    replay = recorder.finish([p.to_dict() for p in players], result)
    return MatchOutcome(result=result, players=players, replay=replay)
