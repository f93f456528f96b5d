"""The replay format (docs/replay-format.md): canonical bytes, reading checks, re-checking by the engine."""

from __future__ import annotations

import copy
import gzip
import json
import tracemalloc

import pytest

from armada import replay as replay_module
from armada.replay import (
    MANIFEST,
    ReplayError,
    game_content,
    load_replay_bytes,
    read_dataset,
    read_replay,
    rebuild_states,
    replay_bytes,
    write_replay,
)
from armada.timings import bank_sent, recorded_limits, seat_times, totals
from tests.sdk.referee.conftest import play, steady
from tests.sdk.referee.sumrace import SUMRACE


@pytest.fixture(scope="module")
def match():
    return play(steady("a", step=2), steady("b", step=1), seed=11)


def test_replay_has_the_documented_fields(match):
    replay = match.replay
    assert replay["format"] == "armada-replay" and replay["version"] == 1
    assert replay["engine_version"] == "sumrace-1" and replay["game"] == "sumrace" and replay["seed"] == 11
    assert replay["config"] == {"target": 6, "max_turns": 20}
    assert replay["seats"] == [p.to_dict() for p in match.players]
    assert replay["result"] == match.result.to_dict()
    assert replay["initial"]["turn"] == 1
    first = replay["steps"][0]
    assert first["phase"] == "move" and first["turn"] == 1
    assert first["answers"] == {"1": {"n": 2}, "2": {"n": 1}}
    assert first["events"] == [{"seat": 1, "add": 2}, {"seat": 2, "add": 1}]
    assert first["frame"]["turn"] == 2
    content = json.dumps(game_content(replay))
    assert "bank_ms" not in content and "elapsed" not in content  # clock readings only in `timings`
    timings = replay["timings"]
    assert set(timings) == {"limits", "seats"} and set(timings["seats"]) == {"1", "2"}
    assert timings["limits"] == {"init_ms": 5000, "turn_ms": 150, "bank_ms": 300}
    for seat in (1, 2):
        times = seat_times(replay, seat)
        assert [t.id for t in times] == list(range(1 + len(replay["steps"])))  # init, then one per step
        assert all(isinstance(t.ms, float) and t.ms >= 0 for t in times)
        assert all(t.bank_ms == 300 and not t.timeout for t in times)  # fast replies cost no bank
        assert totals(replay, seat)["total_ms"] == round(sum(t.ms for t in times), 1)


def test_older_replays_timings_still_read():
    # before issue 27 `timings` mapped each seat to a plain list of milliseconds
    old = {"seats": [{"seat": 1, "status": "ok"}, {"seat": 2, "status": "timeout"}],
           "timings": {"1": [40.5, 2.0, 3.5], "2": [38.0, 1.0, 1450.0]}}
    assert [t.ms for t in seat_times(old, 1)] == [40.5, 2.0, 3.5]
    assert [t.bank_ms for t in seat_times(old, 1)] == [None] * 3
    assert [t.timeout for t in seat_times(old, 2)] == [False, False, True]  # its last request timed out
    assert totals(old, 1) == {"total_ms": 46.0, "max_ms": 40.5, "max_request": 0, "timeouts": 0}  # init
    assert totals(old, 2) == {"total_ms": 1489.0, "max_ms": 1450.0, "max_request": 2, "timeouts": 1}
    assert recorded_limits(old) is None and bank_sent(old, 1, 1) is None
    assert totals({"seats": []}, 1) is None and seat_times({"timings": {"1": "junk"}}, 1) == []


def test_same_seed_same_answers_same_bytes(tmp_path, match):
    # GX-23: the game's content is byte-identical; only the `timings` field holds clock readings
    again = play(steady("a", step=2), steady("b", step=1), seed=11)
    assert replay_bytes(game_content(again.replay)) == replay_bytes(game_content(match.replay))
    write_replay(game_content(match.replay), tmp_path / "one.json.gz")
    write_replay(game_content(again.replay), tmp_path / "two.json.gz")
    assert (tmp_path / "one.json.gz").read_bytes() == (tmp_path / "two.json.gz").read_bytes()
    other = play(steady("a", step=2), steady("b", step=1), seed=12)
    assert replay_bytes(other.replay) != replay_bytes(match.replay)  # the seed matters (head start)


@pytest.mark.parametrize("name", ["r.json.gz", "r.json", "r.replay"])
def test_write_read_round_trip(tmp_path, match, name):
    path = tmp_path / name
    write_replay(match.replay, path)
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == (not name.endswith(".json"))
    assert read_replay(path) == match.replay


def _write_json(path, obj):
    path.write_text(json.dumps(obj))
    return path


def test_unknown_format_and_version_are_rejected(tmp_path, match):
    wrong = dict(match.replay, format="chess-pgn")
    with pytest.raises(ReplayError, match="not an Armada replay"):
        read_replay(_write_json(tmp_path / "a.json", wrong))
    newer = dict(match.replay, version=2)
    with pytest.raises(ReplayError, match="unsupported replay version 2"):
        read_replay(_write_json(tmp_path / "b.json", newer))
    missing = {k: v for k, v in match.replay.items() if k != "steps"}
    with pytest.raises(ReplayError, match="no 'steps'"):
        read_replay(_write_json(tmp_path / "c.json", missing))
    with pytest.raises(ReplayError, match="a replay is a JSON object"):
        read_replay(_write_json(tmp_path / "d.json", [1, 2]))


def test_damaged_and_missing_files_are_clear_errors(tmp_path, match):
    path = tmp_path / "r.json.gz"
    write_replay(match.replay, path)
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(ReplayError, match="damaged gzip data"):
        read_replay(path)
    (tmp_path / "t.json").write_text("not json")
    with pytest.raises(ReplayError, match="not a JSON replay"):
        read_replay(tmp_path / "t.json")
    with pytest.raises(ReplayError, match="cannot read replay"):
        read_replay(tmp_path / "absent.json.gz")


def test_a_gzip_bomb_is_refused_without_being_decompressed_whole(tmp_path, match, monkeypatch):
    """A downloaded replay (`read_dataset`) is decompressed in a stream, at most MAX_REPLAY_JSON_BYTES."""
    assert replay_module.MAX_REPLAY_JSON_BYTES == 1024 * 1024 * 1024
    cap = 4 * 1024 * 1024
    monkeypatch.setattr(replay_module, "MAX_REPLAY_JSON_BYTES", cap)
    bomb = gzip.compress(b" " * (12 * cap), compresslevel=1)  # 48 MiB of JSON whitespace in about 200 KiB
    tracemalloc.start()
    try:
        with pytest.raises(ReplayError, match=rf"r\.json\.gz: more than {cap} bytes of JSON"):
            load_replay_bytes(bomb, "r.json.gz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * cap
    (tmp_path / "1.json.gz").write_bytes(bomb)
    (tmp_path / MANIFEST).write_text(json.dumps({"file": "1.json.gz"}) + "\n")
    with pytest.raises(ReplayError, match=r"1\.json\.gz: more than"):
        next(read_dataset(tmp_path))
    (tmp_path / "plain.json").write_bytes(b" " * (cap + 1))
    with pytest.raises(ReplayError, match="more than"):
        read_replay(tmp_path / "plain.json")
    assert load_replay_bytes(replay_bytes(match.replay)) == match.replay  # a real one reads as before


def test_gzip_header_has_no_name_or_time(tmp_path, match):
    path = tmp_path / "r.json.gz"
    write_replay(match.replay, path)
    data = path.read_bytes()
    assert data[4:8] == b"\0\0\0\0"  # mtime 0
    assert gzip.decompress(data) == replay_bytes(match.replay)


def test_rebuild_returns_the_frames(match):
    frames = rebuild_states(match.replay, game=SUMRACE)
    assert frames == [match.replay["initial"], *[s["frame"] for s in match.replay["steps"]]]


def test_rebuild_detects_a_tampered_replay(match):
    tampered = copy.deepcopy(match.replay)
    tampered["steps"][1]["answers"]["2"] = {"n": 3}
    with pytest.raises(ReplayError, match=r"step 1 \(events\) does not match"):
        rebuild_states(tampered, game=SUMRACE)
    config = SUMRACE.parse_config(None)
    seed = next(s for s in range(100) if SUMRACE.frame(SUMRACE.initial_state(s, config)) != match.replay["initial"])
    with pytest.raises(ReplayError, match="initial frame does not match"):
        rebuild_states(dict(match.replay, seed=seed), game=SUMRACE)


def test_start_state_is_recorded_and_used():
    start = {"turn": 4, "totals": {"1": 3, "2": 1}, "target": 6, "max_turns": 20}
    outcome = play(steady("a"), steady("b"), seed=1, start_state=start)
    assert outcome.replay["start_state"] == start
    assert outcome.replay["initial"] == {"turn": 4, "totals": {"1": 3, "2": 1}}
    assert outcome.result.winner == 1
    frames = rebuild_states(outcome.replay, game=SUMRACE)
    assert frames[-1]["totals"] == {"1": 6, "2": 4}


def test_rebuild_ignores_the_timings(match):
    # docs/replay-format.md: `timings` is no part of the game; a replay with other timings rebuilds the same
    other = copy.deepcopy(match.replay)
    other["timings"] = {"1": [999.0], "2": []}
    assert rebuild_states(other, SUMRACE) == rebuild_states(match.replay, SUMRACE)
    del other["timings"]
    assert rebuild_states(other, SUMRACE) == rebuild_states(match.replay, SUMRACE)  # older replays have none


@pytest.fixture(scope="module")
def galaxy_replay():
    """A short Galaxy game as the site would serve it (for `read_dataset`)."""
    from armada.rl import parallel_env

    env = parallel_env("galaxy", max_turns=5)
    env.reset(seed=3)
    while env.agents:
        env.step({agent: env.action_space(agent).sample() for agent in env.agents})
    return env.session.replay()


def _dataset(folder, replay) -> None:
    write_replay(replay, folder / "9.json.gz")
    (folder / MANIFEST).write_text(json.dumps({"match": 9, "file": "9.json.gz"}) + "\n")


def test_read_dataset_reads_a_replay_and_refuses_what_it_cannot_start_naming_the_file(tmp_path, galaxy_replay):
    """What this engine cannot start (a newer engine's setting, a game it does not know, seats not
    numbered, a manifest that is not text) is a ReplayError naming the file, which train.py shows as
    one line (before: ConfigError, UnknownGame, ValueError or UnicodeDecodeError, a traceback)."""
    _dataset(tmp_path, galaxy_replay)
    (example,) = list(read_dataset(tmp_path))
    assert example.row["match"] == 9 and example.pairs
    cases = {
        "newer setting": (lambda r: r["config"].update(fog_radius=2), r"9\.json\.gz: galaxy replay .*fog_radius"),
        "unknown game": (lambda r: r.update(game="asteroids"), r"9\.json\.gz: 'asteroids' replay: .*upgrade armada"),
        "seat keys": (lambda r: r["steps"][0]["answers"].update(first={}), r"9\.json\.gz: step 0 is malformed"),
    }
    for change, message in cases.values():
        bad = copy.deepcopy(galaxy_replay)
        change(bad)
        _dataset(tmp_path, bad)
        with pytest.raises(ReplayError, match=message):
            list(read_dataset(tmp_path))
    (tmp_path / MANIFEST).write_bytes(b"\xff\xfe{}\n")
    with pytest.raises(ReplayError, match="is not UTF-8 text"):
        list(read_dataset(tmp_path))
