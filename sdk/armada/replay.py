"""The replay format, version 1 (docs/replay-format.md): recording, writing, reading, re-checking.

A replay holds what determines a match (game, engine version, seed, config, optional
starting state, every step's answers) plus what a viewer draws (frames, events), how it
ended (seats, result) and, in the one top-level field `timings`, how long each request took.
It is serialized canonically (sorted keys, fixed separators, gzip with mtime 0), so the same
seed and the same answers give the same bytes once `timings` is left out (`game_content`,
GX-23); `rebuild_states` never reads `timings`. `pairs` turns a replay into what an imitation
learner trains on (each seat's requests, rebuilt by the engine, and its replies) and
`read_dataset` does it for every replay `armada dataset download` wrote.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from armada.games.base import Fault, Game, Request, Result, StepResult
from armada.safefile import write_bytes_atomic

FORMAT = "armada-replay"
VERSION = 1
#: Keys every version-1 replay has, with their JSON types.
REQUIRED_KEYS: dict[str, type | tuple[type, ...]] = {
    "format": str, "version": int, "engine_version": str, "game": str, "seed": int,
    "config": dict, "seats": list, "steps": list, "result": dict,
}
#: The one field with clock readings (each request's time, per seat); not part of the game's content.
TIMINGS = "timings"
_GZIP_MAGIC = b"\x1f\x8b"
#: An answer larger than this (as JSON) is replaced by a note of its size in the replay.
MAX_ANSWER_BYTES = 64 * 1024
#: The largest replay read, as JSON (decompressed): a 1,000-turn Galaxy game of the starters is
#: 12 MiB, so the longest a configuration allows (10,000 turns) is about 120 MiB with such bots,
#: more with long answers (capped at MAX_ANSWER_BYTES a seat). Past it a file is refused, never
#: decompressed whole (a gzip bomb).
MAX_REPLAY_JSON_BYTES = 1024 * 1024 * 1024


class ReplayError(ValueError):
    """A file or object is not a replay this SDK can read, or does not match its engine."""


def plain(value: Any) -> Any:
    """`value` as plain JSON data (tuples become lists, keys strings), as it reads back from a file."""
    return json.loads(json.dumps(value, allow_nan=False))


#: The local replay's drawings (armada.drawing.with_drawings): what the bots drew, not game content either.
DEBUG = "debug"


def game_content(replay: dict[str, Any]) -> dict[str, Any]:
    """The replay without its `timings` (and a local replay's drawings, `debug`): what the seed and
    the answers determine (GX-23)."""
    return {key: value for key, value in replay.items() if key not in (TIMINGS, DEBUG)}


def replay_bytes(replay: dict[str, Any]) -> bytes:
    """The canonical JSON encoding of a replay (UTF-8, sorted keys, no spaces)."""
    return json.dumps(replay, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def replay_gzip(replay: dict[str, Any]) -> bytes:
    """The replay as stored: its canonical JSON, gzip with no name and mtime 0 (the same replay
    gives the same bytes)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as gz:
        gz.write(replay_bytes(replay))
    return buffer.getvalue()


def write_replay(replay: dict[str, Any], path: str | Path) -> None:
    """Write a replay: gzip-compressed JSON, or plain JSON when the name ends in `.json`."""
    target = Path(path)
    data = replay_bytes(replay) if target.name.endswith(".json") else replay_gzip(replay)
    write_bytes_atomic(target, data)  # a failed write leaves no torn replay, keeps an older one


def load_replay_bytes(data: bytes, source: str = "replay") -> dict[str, Any]:
    """Parse and check a replay from bytes (gzip or plain JSON), at most MAX_REPLAY_JSON_BYTES of
    JSON (gzip is decompressed in a stream and refused past it)."""
    if data[:2] == _GZIP_MAGIC:
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as unpacked:
                data = unpacked.read(MAX_REPLAY_JSON_BYTES + 1)
        except (OSError, EOFError) as exc:
            raise ReplayError(f"{source}: damaged gzip data ({exc})") from None
    if len(data) > MAX_REPLAY_JSON_BYTES:
        raise ReplayError(f"{source}: more than {MAX_REPLAY_JSON_BYTES} bytes of JSON (decompressed), "
                          "larger than any replay: not read")
    try:
        replay = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ReplayError(f"{source}: not a JSON replay ({exc})") from None
    check_replay(replay, source)
    return replay  # type: ignore[no-any-return]


def read_replay(path: str | Path) -> dict[str, Any]:
    """Read a replay written by `write_replay` (.json or .json.gz); ReplayError says what is wrong."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(f"cannot read replay {path}: {exc.strerror or exc}") from None
    return load_replay_bytes(data, str(path))


def check_replay(replay: Any, source: str = "replay") -> None:
    """Raise ReplayError unless `replay` looks like a version-1 Armada replay."""
    if not isinstance(replay, dict):
        raise ReplayError(f"{source}: a replay is a JSON object, got {type(replay).__name__}")
    if "format" not in replay and isinstance(replay.get("detail"), str) and len(replay) == 1:
        # what the site answers instead of a replay (a match that does not exist, is private or is unfinished),
        # saved under the replay's name by a download
        raise ReplayError(f"{source}: holds the site's error answer, not a replay: {replay['detail'][:200]}")
    if replay.get("format") != FORMAT:
        raise ReplayError(f"{source}: not an Armada replay (format is {replay.get('format')!r}, "
                          f"expected {FORMAT!r})")
    if replay.get("version") != VERSION:
        raise ReplayError(f"{source}: unsupported replay version {replay.get('version')!r} "
                          f"(this SDK reads version {VERSION})")
    for key, kind in REQUIRED_KEYS.items():
        if key not in replay:
            raise ReplayError(f"{source}: replay has no {key!r}")
        if not isinstance(replay[key], kind) or isinstance(replay[key], bool):
            raise ReplayError(f"{source}: replay field {key!r} has the wrong type")
    for index, step in enumerate(replay["steps"]):
        if not isinstance(step, dict) or not isinstance(step.get("answers"), dict):
            raise ReplayError(f"{source}: step {index} is malformed (needs an 'answers' object)")
        if not all(isinstance(seat, str) and seat.isdigit() for seat in step["answers"]):
            raise ReplayError(f"{source}: step {index} is malformed (its answers are keyed by seat numbers)")


class ReplayRecorder:
    """Builds a replay while the referee plays; `finish` returns the replay object."""

    def __init__(self, game: Game, seed: int, config: dict[str, Any], initial_frame: dict[str, Any] | None,
                 start_state: dict[str, Any] | None = None) -> None:
        self.replay: dict[str, Any] = {
            "format": FORMAT, "version": VERSION, "engine_version": game.engine_version,
            "game": game.slug, "seed": seed, "config": plain(config), "initial": plain(initial_frame),
            "steps": [],
        }
        if start_state is not None:
            self.replay["start_state"] = plain(start_state)
        self.game = game

    def add_step(self, phases: dict[int, str], turn: Any, answers: dict[int, dict[str, Any]],
                 step: StepResult, frame: dict[str, Any] | None) -> None:
        """Record one step: the request type(s), the turn, each seat's answer, events, faults, frame."""
        kept = {seat: recorded_answer(self.game, phases[seat], answer) for seat, answer in answers.items()}
        # Copied now: engines may reuse and mutate the objects they returned.
        self.replay["steps"].append(plain(step_record(phases, turn, kept, step.events, step.faults, frame)))

    def finish(self, seats: list[dict[str, Any]], result: Result,
               timings: dict[str, Any] | None = None) -> dict[str, Any]:
        """The finished replay, as plain JSON data; `timings`: the clock readings (`armada.timings`).

        A new object each call (a game's replay may be read before its end, `armada.api`); the steps
        are shared with the recorder, plain copies made as they were recorded and never changed:
        copying the whole replay again was an eighth of an in-process Galaxy game."""
        replay = {**self.replay, "steps": list(self.replay["steps"]), "seats": plain(seats),
                  "result": plain(result.to_dict())}
        if timings is not None:
            replay[TIMINGS] = plain(timings)
        return replay


def with_bot_names(replay: dict[str, Any], bots: dict[int, str]) -> dict[str, Any]:
    """`replay` with each seat in `bots` (seat -> name) given its `bot`, the site's name of the seat's
    bot (replay-format.md), so a downloaded replay shows the bots as the site names them."""
    if not isinstance(replay.get("seats"), list):  # (no seats to name: as it is)
        return replay
    return {**replay, "seats": [{**entry, "bot": bots[entry["seat"]]} if entry.get("seat") in bots else entry
                                for entry in replay["seats"]]}


def seat_label(seat: dict[str, Any]) -> str:
    """A seat's name for people: the name the bot announced, and in brackets the site's name of the
    bot when a site stored the replay (its `bot`) and it differs."""
    name, bot = str(seat.get("name", "")), seat.get("bot")
    if not isinstance(bot, str) or not bot or bot == name:
        return name
    return f"{name} ({''.join(c if c.isprintable() else '?' for c in bot[:60])})"  # (a replay is anyone's file)


def recorded_answer(game: Game, phase: str, answer: dict[str, Any]) -> dict[str, Any]:
    """What the replay keeps of one answer: the engine's own selection (`replay_answer`) when it
    has one, and never more than MAX_ANSWER_BYTES, so a bot cannot bloat stored replays."""
    select = getattr(game, "replay_answer", None)
    kept = select(phase, answer) if select is not None else answer
    size = len(json.dumps(kept, allow_nan=False, default=str))
    if size > MAX_ANSWER_BYTES:
        return {"truncated": True, "bytes": size}
    return kept  # type: ignore[no-any-return]


def too_large(answer: Any) -> bool:
    """Whether a recorded answer is the note `recorded_answer` keeps of one too large to keep."""
    return (isinstance(answer, dict) and set(answer) == {"truncated", "bytes"} and answer["truncated"] is True
            and isinstance(answer["bytes"], int) and answer["bytes"] > MAX_ANSWER_BYTES)


def step_record(phases: dict[int, str], turn: Any, answers: dict[int, dict[str, Any]],
                events: list[dict[str, Any]], faults: dict[int, Fault],
                frame: dict[str, Any] | None) -> dict[str, Any]:
    """One entry of `steps`; `phase` is the request type (a seat -> type object if seats differ)."""
    kinds = set(phases.values())
    phase: Any = next(iter(kinds)) if len(kinds) == 1 else {str(s): t for s, t in sorted(phases.items())}
    record: dict[str, Any] = {
        "phase": phase, "turn": turn,
        "answers": {str(seat): answer for seat, answer in sorted(answers.items())},
        "events": events,
    }
    if faults:
        record["faults"] = {str(seat): {"status": f.status, "detail": f.detail} for seat, f in sorted(faults.items())}
    if frame is not None:
        record["frame"] = frame
    return record


def _engine_for(replay: dict[str, Any], game: Game | None) -> Game:
    if game is not None:
        return game
    from armada.games.registry import get_game

    return get_game(replay["game"])


def _replayed(replay: dict[str, Any], game: Game | None) -> Iterator[tuple[int, dict[int, Request], dict[str, Any]]]:
    """Run the recorded answers through the engine, checking each step against the recording;
    yields (step index, what each seat was asked, the frame after it) before the initial frame
    (index -1, no requests) and after every step."""
    check_replay(replay)
    try:
        engine = _engine_for(replay, game)
    except ValueError as exc:  # UnknownGame: a game of a newer SDK?
        raise ReplayError(f"{replay['game']!r} replay: {exc}; upgrade armada and read it again") from None
    where = f"{replay['game']} replay (engine {replay['engine_version']}, this engine {engine.engine_version})"
    try:  # a setting or state this engine does not know: most likely a newer engine's replay
        config = engine.parse_config(replay["config"])
        start = replay.get("start_state")
        state = engine.load_state(start) if start is not None else engine.initial_state(replay["seed"], config)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ReplayError(f"{where}: this engine cannot start its game ({exc.__class__.__name__}: "
                          f"{str(exc)[:200]}); upgrade armada and read it again") from None
    initial = plain(engine.frame(state))
    if initial != replay.get("initial"):
        raise ReplayError(f"{where}: the initial frame does not match")
    yield -1, {}, initial
    for index, recorded in enumerate(replay["steps"]):
        if engine.result(state) is not None:
            raise ReplayError(f"{where}: the game was over before step {index}")
        asked = engine.requests(state)
        answers = {int(seat): answer for seat, answer in recorded["answers"].items()}
        if set(answers) != set(asked):
            raise ReplayError(f"{where}: step {index} has answers for seats {sorted(answers)}, "
                              f"the engine asks {sorted(asked)}")
        phases = {seat: request.type for seat, request in asked.items()}
        turn = next(iter(asked.values())).payload.get("turn") if asked else None
        asked = {seat: Request(request.type, plain(request.payload)) for seat, request in asked.items()}
        result = engine.step(state, answers)
        state = result.state
        again = plain(step_record(phases, turn, answers, result.events, result.faults, engine.frame(state)))
        differs = next((key for key in ("phase", "turn", "events", "faults", "frame")
                        if again.get(key) != recorded.get(key)), None)
        if differs is not None and any(too_large(answer) for answer in answers.values()):
            yield index, asked, _last_as_recorded(where, index, replay, answers)
            return
        if differs is not None:
            raise ReplayError(f"{where}: step {index} ({differs}) does not match the recording")
        yield index, asked, again.get("frame")


def _last_as_recorded(where: str, index: int, replay: dict[str, Any], answers: dict[int, Any]) -> Any:
    """The frame of step `index`, whose answer too large to keep (`too_large`) cannot be played
    again: as recorded, when it is the game's last step (a Mothership Down game has one; a
    refused answer ends any game); ReplayError otherwise (the steps after it cannot be rebuilt)."""
    seat = next(seat for seat, answer in sorted(answers.items()) if too_large(answer))
    if index != len(replay["steps"]) - 1:
        raise ReplayError(f"{where}: step {index}: seat {seat}'s answer was too large to keep "
                          f"({answers[seat]['bytes']} bytes, over {MAX_ANSWER_BYTES}), so the steps after it "
                          "cannot be rebuilt")
    return replay["steps"][index].get("frame")


def rebuild_states(replay: dict[str, Any], game: Game | None = None) -> list[dict[str, Any]]:
    """Replay the recorded answers through the engine; return the frames (initial first).

    Raises ReplayError at the first step whose events, faults or frame differ from the
    recording (e.g. a replay made by another engine version). The last step may hold an answer
    too large to keep (`too_large`): its frame is then the recorded one.
    """
    return [frame for _index, _asked, frame in _replayed(replay, game) if frame is not None]


@dataclass(frozen=True)
class Pair:
    """One request a seat answered in a match: what it was shown and what it replied.

    `observation` is the request as the bot received it (protocol.md): its `type` and the game's
    fields (`turn`, Galaxy's fogged `observation` or `intel` and `warnings`, Mothership's
    configuration...), without the referee's `id` and `bank_ms`; `reply` is the answer the
    replay kept (without `id`; Galaxy keeps `probes` / `fleets`, replay-format.md). An answer too
    large to keep (stored as `{"truncated": true, "bytes": N}`) gives no pair."""

    seat: int
    step: int
    turn: int | None
    observation: dict[str, Any]
    reply: dict[str, Any]


def pairs(replay: dict[str, Any], game: Game | None = None) -> dict[int, list[Pair]]:
    """Every (observation, reply) pair of a replay per seat, in order: the requests are rebuilt by
    the engine's own code (fog included) from the recorded answers, checked as `rebuild_states`
    checks them (ReplayError for a replay this engine does not reproduce). The `init` request
    (the configuration) is not a pair: `replay["config"]` holds it."""
    from armada.referee.game_driver import GameDriver

    seats: dict[int, list[Pair]] = {int(seat["seat"]): [] for seat in replay.get("seats") or [] if "seat" in seat}
    steps = replay.get("steps") or []
    for index, asked, _frame in _replayed(replay, game):
        for seat, request in sorted(asked.items()):
            message = GameDriver.message(request, 0, 0)
            observation = {key: value for key, value in message.items() if key not in ("id", "bank_ms")}
            turn = request.payload.get("turn")
            reply = steps[index]["answers"][str(seat)]
            if too_large(reply):  # nothing of it was kept: no pair
                continue
            seats.setdefault(seat, []).append(Pair(seat, index, turn if isinstance(turn, int) else None,
                                                   observation, reply))
    return seats


#: The manifest of a folder written by `armada dataset download`: one JSON row per replay.
MANIFEST = "manifest.jsonl"


@dataclass(frozen=True)
class Example:
    """One replay of a downloaded dataset: its manifest row, the replay and its pairs per seat."""

    row: dict[str, Any]
    replay: dict[str, Any]
    pairs: dict[int, list[Pair]]


def read_dataset(folder: str | Path) -> Iterator[Example]:
    """Every replay of a folder written by `armada dataset download`, in the manifest's order
    (newest first), with its (observation, reply) pairs per seat (`pairs`). ReplayError for a
    missing manifest, a file missing or whose SHA-256 is not the manifest's, or a replay this
    engine does not reproduce."""
    root = Path(folder)
    try:
        lines = (root / MANIFEST).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ReplayError(f"{root / MANIFEST} is not UTF-8 text: not a manifest `armada dataset download` "
                          "wrote; run the download again into an empty folder") from None
    except OSError as exc:
        if root.is_dir() and any(root.glob("*.json.gz")):  # replays and no manifest: an interrupted download
            raise ReplayError(f"no {MANIFEST} in {root}: its `armada dataset download` did not finish; run the same "
                              "command again (it keeps the replays already there and writes the manifest)") from None
        raise ReplayError(f"cannot read {root / MANIFEST}: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            name = Path(str(row["file"])).name
        except (ValueError, KeyError, TypeError):
            raise ReplayError(f"{root / MANIFEST}: line {number} is not a dataset row") from None
        path = root / name
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ReplayError(f"cannot read {path}: {exc.strerror or exc}; run the same `armada dataset download` "
                              "again (it fetches what is missing or damaged)") from None
        if "sha256" in row and hashlib.sha256(data).hexdigest() != row["sha256"]:
            raise ReplayError(f"{path}: its SHA-256 is not the manifest's: download it again")
        replay = load_replay_bytes(data, str(path))
        try:
            found = pairs(replay)
        except ReplayError as exc:
            raise ReplayError(f"{path}: {exc}") from None
        yield Example(row, replay, found)
