"""Saved game states for `armada play --from-state` and `armada replay --dump-state`.

"Turn N" means the position after N turns have been played (0 = the start), the same
position `armada replay --turn N` draws. A state is taken either from a state dump file
(the engine's `dump_state` as JSON, written by `armada replay --dump-state`) or straight
from a replay as `REPLAY#turn=N`; the replay's recorded answers are played through the
engine again to rebuild it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from armada.cli.common import CliError, get_engine
from armada.games.mothership import engine as mothership_engine
from armada.safefile import write_bytes_atomic

_TURN_MARK = "#turn="
_GZIP_MAGIC = b"\x1f\x8b"


def state_file(spec: str) -> str:
    """The file a --from-state value reads: REPLAY of REPLAY#turn=N, else the value itself."""
    path, mark, _ = spec.rpartition(_TURN_MARK)
    return path if mark else spec


def load_start_state(spec: str, game: str) -> dict[str, Any]:
    """The state a --from-state value names, checked by the engine of `game`; a finished game is refused."""
    path, mark, turn_text = spec.rpartition(_TURN_MARK)
    names: dict[int, str] = {}
    if mark:
        turn = parse_turn(turn_text)
        replay = read_replay_or_fail(path)
        if replay["game"] != game:
            raise CliError(f"--from-state: {path} is a {replay['game']} replay; add --game {replay['game']}")
        data = state_after_turn(replay, turn)
        names = {p["seat"]: p.get("name", "") for p in replay["seats"]}
    else:
        data = _read_state_file(spec)
    other = state_game(data)
    if other is not None and other != game:
        raise CliError(f"--from-state: {spec} holds a {other} state, not a {game} one; add --game {other}")
    engine = get_engine(game)
    try:
        state = engine.load_state(data)
    except ValueError as exc:
        raise CliError(f"--from-state: {spec}: bad {game} state: {exc}") from exc
    result = engine.result(state)
    if result is not None:
        raise CliError(f"--from-state: {spec}: the game is already over after turn {result.turns} "
                       f"({_result_text(result.winner, result.outcome, names)}); choose an earlier turn")
    return data


def state_game(data: dict[str, Any]) -> str | None:
    """The game a state dump is of: its `format` (`galaxy-state`), else a Mothership one by its
    fields; None when it shows neither (the engine's own check then says what is wrong)."""
    kind = data.get("format")
    if isinstance(kind, str) and kind.endswith("-state"):
        return kind.removesuffix("-state")
    if kind is None and data.keys() >= set(mothership_engine.STATE_FIELDS):
        return "mothership"
    return None


def parse_turn(text: str) -> int:
    """The N of `REPLAY#turn=N`: a whole number of turns played (0 = the start)."""
    if not re.fullmatch(r"[0-9]+", text):
        raise CliError(f"--from-state: #turn= needs a whole number (got {text!r})")
    return int(text)


def _result_text(winner: int | None, outcome: str, names: dict[int, str]) -> str:
    """`seat 1, Greedy, won by elimination` (the bot's name when the replay gives it), or the draw."""
    if winner is None:
        return "a draw" if outcome == "draw" else f"a draw, {outcome}"
    name = f", {names[winner]}," if names.get(winner) else ""
    return f"seat {winner}{name} won by {outcome}"


def state_seed(data: dict[str, Any]) -> int | None:
    """The seed a state dump records (both engines keep it), else None."""
    seed = data.get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else None


def _read_state_file(path: str) -> dict[str, Any]:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise CliError(f"--from-state: cannot read {path}: {exc.strerror or exc}") from exc
    if raw[:2] == _GZIP_MAGIC:
        raise CliError(f"--from-state: {path} looks like a replay; say which turn: {path}#turn=N")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CliError(f"--from-state: {path} is not a JSON state dump ({exc})") from exc
    if not isinstance(data, dict):
        raise CliError(f"--from-state: {path} must hold a JSON object")
    if data.get("format") == "armada-replay":
        raise CliError(f"--from-state: {path} is a replay; say which turn: {path}#turn=N")
    return data


def read_replay_or_fail(path: str) -> dict[str, Any]:
    """`armada.replay.read_replay`, with its errors turned into CliError."""
    from armada.replay import ReplayError, read_replay

    try:
        return read_replay(path)
    except ReplayError as exc:
        raise CliError(str(exc)) from exc


def frame_turns(frames: list[dict[str, Any]]) -> list[int]:
    """Turn numbers of the frames that carry one (turns completed when the frame was taken)."""
    turns = (f.get("turn") for f in frames if isinstance(f, dict))
    return [t for t in turns if isinstance(t, int) and not isinstance(t, bool)]


def rebuild_frames(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """`armada.replay.rebuild_states` (every frame, checked against the recording), errors as CliError."""
    from armada.replay import ReplayError, rebuild_states

    try:
        return rebuild_states(replay)
    except (ReplayError, ValueError) as exc:
        raise CliError(str(exc)) from exc


def state_after_turn(replay: dict[str, Any], turn: int) -> dict[str, Any]:
    """The engine's state dump after `turn` turns of the replay, rebuilt from its answers."""
    turns = frame_turns(rebuild_frames(replay))
    engine = get_engine(replay["game"])
    start = replay.get("start_state")
    state = engine.load_state(start) if start is not None else engine.initial_state(
        replay["seed"], engine.parse_config(replay["config"]))
    if not turns:  # Mothership Down: one step, the orders; its battle rounds are no positions to play on
        if turn == 0:
            return engine.dump_state(state)
        raise CliError(f"turn {turn}: a {replay['game']} match is one step (both races' orders, then the whole "
                       "battle, MD-11), so only turn 0, the position before the orders, can be continued "
                       "(the same seed and configuration with other races): use turn 0 (REPLAY#turn=0, --dump-state 0)")
    if turn not in turns:
        raise CliError(f"turn {turn} is not in this replay: it has turns {turns[0]}..{turns[-1]}")
    steps = iter(replay["steps"])
    while True:
        frame = engine.frame(state)
        if isinstance(frame, dict) and frame.get("turn") == turn:
            return engine.dump_state(state)
        step = next(steps, None)
        if step is None:  # cannot happen: the frame list said the turn is there
            raise CliError(f"turn {turn} could not be rebuilt from this replay")
        answers = {int(seat): answer for seat, answer in step["answers"].items()}
        state = engine.step(state, answers).state


def write_state(data: dict[str, Any], path: str) -> None:
    """Write a state dump as readable JSON."""
    try:
        write_bytes_atomic(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from exc
