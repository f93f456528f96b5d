"""The referee loop: play one match between two bot connections (`play_match`).

It follows docs/protocol.md: an `init` handshake, then the game's requests, sent to both
seats at once and timed on each seat's own clock (turn limit plus time bank), then `end`
to every bot still running, and `close()` on every connection. A bot's fault (timeout,
crash, bad framing, bad id, line cap, memory, invalid orders) ends the match by forfeit;
nothing a bot does makes `play_match` raise or hang. A connection whose start raises
`Unavailable` (no Docker engine, no image: not the bot's doing) makes it raise that, once
every connection is closed.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any

from armada.botlog import crash_reason
from armada.drawing import DEBUG_KEY, Board, Drawings, without_debug
from armada.games.base import SEATS, Fault, Game, Request, Result
from armada.logmarks import exception_summary
from armada.narration import warning_counts
from armada.referee.clock import Limits, default_limits
from armada.referee.connection import BotConnection, Unavailable
from armada.referee.environment import bot_seed, seed_key
from armada.referee.framing import PROTOCOL_VERSION, clean_name, encode_message, name_refusal, one_line
from armada.referee.game_driver import GameDriver, resolve_game
from armada.referee.seat import Seat, Timing, ask_all
from armada.stack import missing_module_note
from armada.timings import RequestTime, timings_field

__all__ = ["Limits", "MatchOutcome", "PlayerReport", "default_limits", "play_match", "resolve_game"]

#: Seconds a bot gets to exit after `end` and the close of its input (protocol.md).
END_GRACE_S = 1.0
#: How long the referee waits for the `end` lines to be written before closing anyway.
END_SEND_S = 0.5
#: Longest fault detail kept (a Mothership detail lists every problem of the orders, D-MD-4).
DETAIL_CHARS = 4000
#: Extra seconds allowed for a connection's start/close beyond its own timeouts.
CLOSE_SLACK_S = 10.0
#: The longest the referee waits for a connection's `start()` (a sandbox bounds its own wait far below).
START_WAIT_S = 600.0
#: What a game without its own `drawing_board` lets bots draw on: points in the unit square.
UNIT_BOARD = Board(frozenset(), (0.0, 1.0), (0.0, 1.0))


@dataclass
class TimeUsed:
    """A seat's time in one match: all its requests, the slowest one (and which), the bank left."""

    total_ms: float = 0.0
    slowest_ms: float = 0.0
    slowest: str = ""
    bank_left_ms: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"total_ms": round(self.total_ms, 1), "slowest_ms": self.slowest_ms, "slowest": self.slowest,
                "bank_left_ms": self.bank_left_ms}


@dataclass
class PlayerReport:
    """How one seat did: display name, status (protocol.md "Statuses"), one-line detail, stderr log,
    the exceptions its bot library caught, the orders and probes the engine dropped (GX-8, GX-10),
    its time and its drawings."""

    seat: int
    name: str
    status: str
    detail: str
    log: str = ""
    exceptions: int = 0
    first_exception: str = ""
    warnings: int = 0
    first_warning: str = ""
    time: TimeUsed = field(default_factory=TimeUsed)
    #: What the bot drew (armada.drawing): `{"turns": [{"turn", "shapes", "text"}]}`; private like the log.
    debug: dict[str, Any] = field(default_factory=lambda: {"turns": []})
    #: The most memory its bot used (bytes), where the connection can tell (the sandbox); else None.
    memory_peak_bytes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The public part kept in the replay (the log is for the bot's owner only)."""
        return {"seat": self.seat, "name": self.name, "status": self.status, "detail": self.detail}

    def summary(self) -> dict[str, Any]:
        """The public part with what the summaries show: exceptions caught, warnings, time used."""
        return {**self.to_dict(),
                "exceptions": {"count": self.exceptions, "first": self.first_exception},
                "warnings": {"count": self.warnings, "first": self.first_warning},
                "time": self.time.to_dict(),
                # the sandbox's measure (`armada play --sandbox docker`); null where it cannot tell
                "memory_peak_mib": None if self.memory_peak_bytes is None else -(-self.memory_peak_bytes // 2**20)}


@dataclass
class MatchOutcome:
    """A finished match: the result, one report per seat, the replay object."""

    result: Result
    players: list[PlayerReport]
    replay: dict[str, Any] = field(repr=False)

    @property
    def winner(self) -> int | None:
        """1, 2, or None for a draw."""
        return self.result.winner

    @property
    def turns(self) -> int:
        return self.result.turns

    def summary(self) -> dict[str, Any]:
        """The CLI's --json object."""
        return {
            "game": self.replay["game"], "seed": self.replay["seed"], "turns": self.result.turns,
            "winner": self.result.winner, "outcome": self.result.outcome,
            "players": [p.summary() for p in self.players],
        }


def _in_threads(calls: dict[Seat, Any], timeout: float) -> None:
    """Run one callable per seat in parallel daemon threads; wait at most `timeout` seconds for all."""
    threads = [threading.Thread(target=call, daemon=True, name=f"armada-seat-{seat.seat}")
               for seat, call in calls.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)


def _start(seats: list[Seat], slug: str, config: dict[str, Any], limits: Limits) -> dict[int, Fault]:
    """Start every connection in parallel, each sent its `init` the moment it has started (D-R-19:
    its start-up is in its own init time, whichever bot started first): the faults of the bots
    that did not start or did not answer `init`.

    Raises the first `Unavailable` a connection raised (the match cannot be played at all)."""
    faults: dict[int, Fault] = {}
    unavailable: list[Unavailable] = []

    def starter(seat: Seat) -> Any:
        def run() -> None:
            try:
                seat.conn.start()
                seat.started = True
            except Unavailable as exc:  # not the bot's doing: no fault, play_match raises it
                unavailable.append(exc)
                return
            except Exception as exc:  # BotGone or whatever a connection raises: the bot did not start
                faults[seat.seat] = Fault("crashed", f"could not start: {exc}")
                return
            message = init_message(seat.take_id(), slug, seat.seat, config, limits)
            exchange = ask_all({seat: (message, float(limits.init_ms))})[seat]
            if exchange.fault is not None:
                faults[seat.seat] = exchange.fault
            elif exchange.reply is not None:
                seat.name = clean_name(exchange.reply.get("name"), seat.conn.label)
                refusal = name_refusal(exchange.reply.get("name"))
                if refusal is not None:
                    with contextlib.suppress(Exception):  # a note is for people; it never costs a bot its match
                        seat.conn.note(f"[armada] init: your name is not shown ({refusal}): shown as {seat.name}")
        return run

    _in_threads({seat: starter(seat) for seat in seats},
                timeout=START_WAIT_S + limits.init_ms / 1000.0 + CLOSE_SLACK_S)
    if unavailable:
        raise unavailable[0]
    for seat in seats:
        if not seat.started and seat.seat not in faults:
            faults[seat.seat] = Fault("crashed", "could not start: the start did not finish")
        elif seat.seat not in faults and not seat.timings:  # (its thread is still writing `init`)
            faults[seat.seat] = seat.timeout_fault(init_message(0, slug, seat.seat, config, limits),
                                                   float(limits.init_ms))
    return faults


def init_message(request_id: int, slug: str, seat: int, config: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """The `init` request of a seat (protocol.md, "Messages")."""
    return {"type": "init", "id": request_id, "protocol": PROTOCOL_VERSION, "game": slug,
            "seat": seat, "config": config, "limits": limits.to_dict()}


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


def play_match(game: str | Game, bots: dict[int, BotConnection], *, seed: int,
               config: dict[str, Any] | None = None, limits: Limits | None = None,
               start_state: dict[str, Any] | None = None, bot_seed_key: bytes | None = None) -> MatchOutcome:
    """Play one match; start the connections, play, and always close them.

    `game` is a slug or an engine; `bots` maps seats 1 and 2 to unstarted connections. Each
    connection gets its ARMADA_BOT_SEED from `seed` and its seat, keyed with `bot_seed_key`
    (default: ARMADA_BOT_SEED_KEY of this process, none locally).
    Raises ConfigError for a bad configuration and ValueError for bad arguments or a bad
    starting state (before any bot is started); the `Unavailable` of a connection that could
    not be set up (after every connection is closed); never because of a bot.
    """
    seats: list[Seat] = []
    try:
        if sorted(bots) != list(SEATS):
            raise ValueError(f"play_match needs one bot for each seat {list(SEATS)}, got seats {sorted(bots)}")
        driver = GameDriver(game, seed, config, start_state)
        limits = limits or default_limits(driver.engine)
        key = seed_key() if bot_seed_key is None else bot_seed_key
        for number in SEATS:
            bots[number].bot_seed = bot_seed(seed, number, key)
        seats = [Seat(n, bots[n], limits) for n in SEATS]
        board = getattr(driver.engine, "drawing_board", None)
        drawings = {n: Drawings(board() if board is not None else UNIT_BOARD) for n in SEATS}
    except BaseException:
        for conn in bots.values():
            with contextlib.suppress(Exception):  # the original error is the one to report
                conn.close(grace=0.0)
        raise

    result: Result | None = None
    try:
        faults = _start(seats, driver.engine.slug, driver.config, limits)
        by_number = {seat.seat: seat for seat in seats}
        while not faults:
            result = driver.result()
            if result is not None:
                break
            requests = driver.requests()
            asks = {}
            for number, request in sorted(requests.items()):
                seat = by_number[number]
                asks[seat] = (driver.message(request, seat.take_id(), seat.clock.left_ms()), seat.clock.budget_ms())
            answers: dict[int, dict[str, Any]] = {}
            for seat, exchange in ask_all(asks).items():
                if exchange.fault is not None:
                    faults[seat.seat] = exchange.fault
                else:
                    seat.charge(exchange.elapsed_ms)
                    reply = exchange.reply or {}
                    answers[seat.seat] = without_debug(reply)  # a drawing is never part of the orders
                    keep_drawing(seat, drawings[seat.seat], requests[seat.seat], reply.get(DEBUG_KEY))
            if faults:
                break
            faults.update(driver.advance(requests, answers))
        if faults:
            for seat in seats:
                if seat.seat in faults:
                    seat.fault = Fault(faults[seat.seat].status, one_line(faults[seat.seat].detail, DETAIL_CHARS))
            result = driver.forfeit(faults)
    finally:
        _finish(seats, result)

    assert result is not None
    players = [_report(seat, drawings[seat.seat]) for seat in seats]
    replay = driver.finish([p.to_dict() for p in players], result, timings_field(
        limits.to_dict(), {seat.seat: [RequestTime(t.id, t.ms, t.bank_ms, t.timeout) for t in seat.timings]
                           for seat in seats}))
    warnings = warning_counts(replay)  # (reading the whole replay: once, not once per seat)
    for player in players:
        player.warnings, player.first_warning = warnings.get(player.seat, (0, ""))
    return MatchOutcome(result=result, players=players, replay=replay)


def time_used(timings: list[Timing], bank_left_ms: int) -> TimeUsed:
    """Total and slowest request time of a seat (init included), with its bank left."""
    slowest = max(timings, key=lambda t: t.ms, default=None)
    return TimeUsed(sum(t.ms for t in timings), slowest.ms if slowest else 0.0,
                    slowest.where() if slowest else "", bank_left_ms)


def keep_drawing(seat: Seat, drawings: Drawings, request: Request, raw: Any) -> None:
    """Keep a reply's drawing for its seat; a drawing past its limits leaves one note in the bot's log."""
    turn = request.payload.get("turn")
    note = drawings.add(turn if isinstance(turn, int) and not isinstance(turn, bool) else None, raw)
    if note is not None:
        with contextlib.suppress(Exception):  # a note is for people; it never costs a bot its match
            seat.conn.note(note)


def _report(seat: Seat, drawings: Drawings) -> PlayerReport:
    try:
        log = seat.conn.log()
        notes = seat.conn.log_notes()
    except Exception as exc:
        log, notes = f"[log unavailable: {exc}]", None
    status, detail = (seat.fault.status, seat.fault.detail) if seat.fault else ("ok", "")
    reason = crash_reason(log) if status == "crashed" else ""
    note = missing_module_note(reason)
    if note:  # an import the image cannot satisfy: the traceback, then what there is instead (the
        # detail is public: without the module's name, which the bot's private log could make up)
        detail = one_line(f"{detail}; {missing_module_note(reason, public=True)}", DETAIL_CHARS)
        log = f"{log.rstrip(chr(10))}\n[armada] {note}\n"
    try:
        peak = seat.conn.memory_peak_bytes()
    except Exception:  # a connection that cannot tell: unknown
        peak = None
    report = PlayerReport(seat.seat, seat.name, status, detail, log,
                          time=time_used(seat.timings, seat.clock.left_ms()), debug=drawings.to_dict(),
                          memory_peak_bytes=peak)
    if notes is not None and notes.exceptions:
        report.exceptions, report.first_exception = notes.exceptions, exception_summary(notes.first_exception)
    return report
