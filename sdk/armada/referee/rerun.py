"""One seat of a recorded match, again: the requests it received, and a bot re-run on them.

`seat_requests` rebuilds, from a replay, every request that seat was sent, byte for byte as the
referee framed them: the same `init` (configuration and limits), then each step's request made
by the engine's own code (`GameDriver`, so Galaxy's fog is the engine's) from the recorded
answers of both seats, with the `bank_ms` the seat had then (the replay's `timings`). `rerun`
sends them to a bot on this machine, one at a time through the referee's own exchange (same
framing, ids and deadlines), and compares each reply, as the replay keeps it, with the recorded
one: the first request where they differ (or where the bot fails) ends the run. `answer_all`
feeds a bot the same way and keeps every answer instead (the site's behaviour probes,
docs/integrity.md).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from armada.drawing import without_debug
from armada.games.base import SEATS, Game, Request, Result
from armada.referee.clock import BankClock, Limits, default_limits
from armada.referee.connection import BotConnection, Unavailable
from armada.referee.environment import bot_seed as derive_bot_seed
from armada.referee.environment import seed_key
from armada.referee.framing import encode_message
from armada.referee.game_driver import GameDriver, resolve_game
from armada.referee.match import END_GRACE_S, init_message
from armada.referee.seat import Exchange, Seat, ask_all
from armada.replay import ReplayError, check_replay, plain, recorded_answer
from armada.timings import bank_sent, recorded_limits, seat_times

#: Statuses of a bot that was no longer running at the match's end (it got no `end`).
GONE = frozenset({"crashed", "memory"})
#: Longest JSON shown of a recorded or a re-run reply in a difference.
SHOWN_CHARS = 600


@dataclass
class RecordedRequest:
    """One request a seat received: the message as sent, the answer the replay kept (None when the
    seat failed on this request: `fault` says how) and the turn it belongs to (0: `init`)."""

    message: dict[str, Any]
    answer: dict[str, Any] | None
    turn: int
    phase: str
    fault: str = ""
    #: False for the request of the round the other seat failed in: answered, but never recorded.
    recorded: bool = True


@dataclass
class SeatRequests:
    """Everything a seat was sent in a match, and the limits it played under."""

    game: str
    seat: int
    limits: Limits
    requests: list[RecordedRequest]
    limits_recorded: bool = True


def _seat_entry(replay: dict[str, Any], seat: int) -> dict[str, Any]:
    if isinstance(seat, bool) or seat not in SEATS:
        raise ReplayError(f"seat {seat} is out of range: this {replay['game']} replay has seats "
                          f"{', '.join(map(str, SEATS))}")
    for entry in replay["seats"]:
        if isinstance(entry, dict) and entry.get("seat") == seat:
            return entry
    raise ReplayError(f"the replay has no seat {seat}")


def _banks(replay: dict[str, Any], seat: int, limits: Limits) -> dict[int, int]:
    """The `bank_ms` each request carried: recorded, or worked out from each request's time
    (older replays) the way the referee's clock charges it."""
    times = seat_times(replay, seat)
    clock = BankClock(limits)
    banks: dict[int, int] = {}
    for time in times:
        if time.id >= 1:
            recorded = bank_sent(replay, seat, time.id)
            banks[time.id] = recorded if recorded is not None else clock.left_ms()
            clock.charge(time.ms)
    return banks


def seat_requests(replay: dict[str, Any], seat: int, game: Game | None = None) -> SeatRequests:
    """Every request `seat` received in the match of `replay`; ReplayError when it cannot be rebuilt."""
    check_replay(replay)
    entry = _seat_entry(replay, seat)
    engine = resolve_game(game or replay["game"])
    if engine.slug != replay["game"]:
        raise ReplayError(f"this is a {replay['game']} replay, not a {engine.slug} one")
    recorded = recorded_limits(replay)
    limits = Limits(**recorded) if recorded is not None else default_limits(engine)
    try:
        driver = GameDriver(engine, replay["seed"], replay["config"], replay.get("start_state"))
    except ValueError as exc:
        raise ReplayError(f"the replay's configuration or state does not load: {exc}") from None
    banks = _banks(replay, seat, limits)
    fault = f"{entry.get('status')}: {entry.get('detail') or ''}".rstrip(": ")
    failed = entry.get("status") not in ("ok", "invalid", None)
    requests = [RecordedRequest(init_message(0, engine.slug, seat, driver.config, limits), {}, 0, "init")]
    where = f"{replay['game']} replay (engine {replay['engine_version']}, this engine {engine.engine_version})"
    for index, step in enumerate(replay["steps"]):
        if driver.result() is not None:
            raise ReplayError(f"{where}: the game was over before step {index}")
        asked = driver.requests()
        answers = {int(s): answer for s, answer in step["answers"].items()}
        if set(answers) != set(asked):
            raise ReplayError(f"{where}: step {index} does not match the engine's requests")
        if seat in asked:
            requests.append(_request(asked[seat], len(requests), banks, limits, answers[seat]))
        driver.advance(asked, answers)
        again = driver.recorder.replay["steps"][-1]
        if any(again.get(key) != step.get(key) for key in ("phase", "turn", "events", "faults", "frame")):
            raise ReplayError(f"{where}: step {index} does not match the recording (another engine version?)")
    steps = replay["steps"]
    last_faults = steps[-1].get("faults") if steps else None
    in_a_step = isinstance(last_faults, dict) and str(seat) in last_faults  # the engine refused its reply
    if failed and not in_a_step:
        times = seat_times(replay, seat)
        at_init = len(times) == 1 if times else "init" in str(entry.get("detail") or "")
        if not steps and at_init:
            requests[0] = RecordedRequest(requests[0].message, None, 0, "init", fault)
        elif driver.result() is None:
            asked = driver.requests()
            if seat in asked:
                requests.append(_request(asked[seat], len(requests), banks, limits, None, fault))
    elif not failed:
        anyone_failed = any(isinstance(e, dict) and e.get("status") not in ("ok", "invalid") for e in replay["seats"])
        if driver.result() is None and not anyone_failed:
            raise ReplayError(f"the replay stops after {len(steps)} steps, before the game's end, "
                              "and no seat failed: it holds only part of the match's requests")
        if len(requests) == 1 and not anyone_failed:
            raise ReplayError(f"the replay holds no requests for seat {seat}")
        if driver.result() is None and len(seat_times(replay, seat)) > len(requests):
            asked = driver.requests()  # the round the other seat failed in: this seat answered it too
            if seat in asked:
                requests.append(_request(asked[seat], len(requests), banks, limits, None, recorded=False))
    if entry.get("status") not in GONE:  # the referee sends `end` to every bot still running
        end = {"type": "end", "id": len(requests), "result": _end_result(driver, replay)}
        requests.append(RecordedRequest(end, None, _turn(end, len(requests)), "end"))
    return SeatRequests(engine.slug, seat, limits, requests, recorded is not None)


def _request(request: Request, number: int, banks: dict[int, int], limits: Limits,
             answer: dict[str, Any] | None, fault: str = "", recorded: bool = True) -> RecordedRequest:
    """Request `number` of the seat as the referee framed it, with the bank it had then."""
    message = GameDriver.message(request, number, banks.get(number, limits.bank_ms))
    return RecordedRequest(message, answer, _turn(message, number), request.type, fault, recorded)


def _end_result(driver: GameDriver, replay: dict[str, Any]) -> dict[str, Any]:
    """The result the `end` request carried: the engine's when it ended the game itself (its key
    order), else the recorded one (a forfeit; the file's keys are sorted, the referee's were not)."""
    ended = driver.result()
    if ended is not None and plain(ended.to_dict()) == replay["result"]:
        return plain(ended.to_dict())  # type: ignore[no-any-return]
    recorded = replay["result"]
    result = Result(recorded.get("winner"), str(recorded.get("outcome")), int(recorded.get("turns") or 0),
                    dict(recorded.get("scores") or {}))
    return plain(result.to_dict())  # type: ignore[no-any-return]


def _turn(message: dict[str, Any], number: int) -> int:
    turn = message.get("turn")
    return turn if isinstance(turn, int) and not isinstance(turn, bool) else number


def requests_jsonl(replay: dict[str, Any], seat: int) -> str:
    """The seat's requests as JSON lines, exactly as the referee wrote them to the bot."""
    return "".join(encode_message(r.message).decode("utf-8")
                   for r in seat_requests(replay, seat).requests)


@dataclass
class Difference:
    """The first request where the re-run bot did not do what the recorded one did."""

    request: RecordedRequest
    recorded: str
    here: str

    def describe(self) -> str:
        """`turn 7 differs (command, request 14)` and both replies."""
        r = self.request
        # (a Mothership race's one request is its orders, before any round: not "turn 1", D-R-16)
        what = "the orders differ" if r.phase == "orders" else f"turn {r.turn} differs"
        return (f"{what} ({r.phase}, request {r.message['id']})\n"
                f"  recorded: {self.recorded}\n  this bot: {self.here}")


@dataclass
class RerunReport:
    """How a re-run went: the requests and turns that agreed, the first difference, the bot's log."""

    agreed: int = 0
    turns: set[int] = field(default_factory=set)
    difference: Difference | None = None
    log: str = ""
    crashed: str = ""

    @property
    def ok(self) -> bool:
        return self.difference is None

    def describe(self) -> str:
        if self.difference is not None:
            return self.difference.describe()
        failed = f"; it failed as on the server ({self.crashed})" if self.crashed else ""
        turns, requests = len(self.turns), self.agreed
        # `all N turns agree` even for one (issue 27's words, which scripts match), not "the one turn agrees"
        return f"all {turns} turns agree ({requests} request{'' if requests == 1 else 's'}{failed})"


def _shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


class _Session:
    """One bot fed recorded requests through the referee's own exchange (framing, ids, deadlines):
    what `rerun` and `answer_all` share."""

    def __init__(self, recorded: SeatRequests, conn: BotConnection, bot_seed: int) -> None:
        self.recorded = recorded
        self.conn = conn
        conn.bot_seed = bot_seed
        self.talker = Seat(recorded.seat, conn, recorded.limits)

    def ask(self, message: dict[str, Any]) -> Exchange:
        """Send one request (not `end`) with the budget the referee gave it; the exchange."""
        limits = self.recorded.limits
        self.talker.next_id = message["id"] + 1
        budget = float(limits.init_ms if message["type"] == "init" else limits.turn_ms + message.get("bank_ms", 0))
        return ask_all({self.talker: (message, budget)})[self.talker]

    def end(self, message: dict[str, Any]) -> None:
        """Send `end` as the referee sends it (no reply)."""
        with contextlib.suppress(Exception):
            self.conn.send(encode_message(message))

    def close(self) -> str:
        """Close the bot (its grace after `end`) and return its log."""
        with contextlib.suppress(Exception):
            self.conn.close(grace=END_GRACE_S)
        with contextlib.suppress(Exception):
            return self.conn.log()
        return ""


def rerun(replay: dict[str, Any], seat: int, conn: BotConnection, *, bot_seed: int | None = None) -> RerunReport:
    """Send `conn` (unstarted) every request `seat` received, in order; stop at the first difference.

    `bot_seed` is its ARMADA_BOT_SEED (the site's is keyed with a secret: the match page gives it
    to the bot's owner); ReplayError before the bot starts when the replay cannot be rebuilt."""
    recorded = seat_requests(replay, seat)
    engine = resolve_game(recorded.game)
    session = _Session(recorded, conn, bot_seed if bot_seed is not None
                       else derive_bot_seed(replay["seed"], seat, seed_key()))
    report = RerunReport()
    try:
        try:
            conn.start()
        except Unavailable:  # the platform's failure (no slot, no engine), not the bot's: no difference
            raise
        except Exception as exc:
            report.difference = Difference(recorded.requests[0], "started", f"could not start: {exc}")
            return report
        for request in recorded.requests:
            message = request.message
            if message["type"] == "end":  # no reply: sent as the referee sends it, then the input closes
                session.end(message)
                break
            exchange = session.ask(message)
            if exchange.fault is not None:
                if request.answer is None and request.fault.startswith(exchange.fault.status):
                    # it fails here as it failed on the server: a request agreed, not a turn played
                    # (the match's turns are the ones played, one fewer: "all 34 turns agree" for 34)
                    report.agreed += 1
                    report.crashed = f"turn {request.turn}: {exchange.fault.status}: {exchange.fault.detail}"
                    # the turn it failed in was never played, though an earlier request of it (Galaxy's
                    # scout, before a crash in its command) was answered: the turns count as the match's
                    report.turns.discard(request.turn)
                    break
                was = request.fault or ("replied" if request.answer is not None else "")
                report.difference = Difference(request, was, f"{exchange.fault.status}: {exchange.fault.detail}")
                break
            reply = exchange.reply or {}
            if not request.recorded:  # answered on the server too; what it answered was never kept
                report.agreed += 1
                continue
            if request.answer is None:
                # shown as the replay would keep it: without its drawing, which is never a difference
                report.difference = Difference(request, request.fault, "replied " + _shown(without_debug(reply)))
                break
            if message["type"] != "init":
                kept = plain(recorded_answer(engine, request.phase, without_debug(reply)))
                if kept != request.answer:
                    report.difference = Difference(request, _shown(request.answer), _shown(kept))
                    break
            report.agreed += 1
            if message["type"] != "init":
                report.turns.add(request.turn)
    finally:
        report.log = session.close()
    return report


@dataclass
class Answers:
    """What a bot answered to every request of a recorded sequence (`answer_all`): per request
    after `init`, the answer as the replay keeps it, or None once it failed (`fault` says where
    and how; the failing request's own entry is `{"fault": STATUS}`)."""

    answers: list[Any]
    fault: str = ""
    log: str = ""


def answer_all(recorded: SeatRequests, conn: BotConnection, *, bot_seed: int) -> Answers:
    """Send `conn` (unstarted) the `init` and every turn request of `recorded` (never `end`), as
    `rerun` does, and keep each answer in the replay's form whatever it is (a probe, not a
    comparison); a fault ends the run, the requests left get None. A connection that cannot be
    set up for a reason that is not the bot's raises its `Unavailable`."""
    engine = resolve_game(recorded.game)
    turns = [r for r in recorded.requests if r.message["type"] not in ("init", "end")]
    answers: list[Any] = [None] * len(turns)
    session = _Session(recorded, conn, bot_seed)
    fault = ""
    try:
        try:
            conn.start()
        except Unavailable:
            raise
        except Exception as exc:
            return Answers(answers, f"could not start: {exc}")
        init = next((r for r in recorded.requests if r.message["type"] == "init"), None)
        exchange = session.ask(init.message) if init is not None else None
        if exchange is not None and exchange.fault is not None:
            return Answers(answers, f"init: {exchange.fault.status}: {exchange.fault.detail}")
        for index, request in enumerate(turns):
            exchange = session.ask(request.message)
            if exchange.fault is not None:
                answers[index] = {"fault": exchange.fault.status}
                fault = f"turn {request.turn}: {exchange.fault.status}: {exchange.fault.detail}"
                break
            # as the game reads it: a drawing neither counts nor hides an answer (D-R-16)
            answers[index] = plain(recorded_answer(engine, request.phase, without_debug(exchange.reply or {})))
    finally:
        log = session.close()
    return Answers(answers, fault, log)
