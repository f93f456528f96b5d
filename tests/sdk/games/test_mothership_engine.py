"""The Mothership Down engine object: one orders step (MD-11), faults (MD-12), result, frames, state."""

import json

import pytest

from armada.games.base import Fault, Request, Result
from armada.games.mothership import MOTHERSHIP, battle, parse_config
from armada.games.registry import GAMES, UnknownGame, get_game

from .mothership_samples import ziltoidians


def strong():
    return {
        "mothership": {"defence": 10},
        "fighters": [{"attack": 11, "defence": 7, "pattern": [5]} for _ in range(5)],
    }


def result_of(state) -> Result:
    result = MOTHERSHIP.result(state)
    assert result is not None
    return result


def frame_of(state) -> dict:
    frame = MOTHERSHIP.frame(state)
    assert frame is not None
    return frame


def played(answers, config=None):
    state = MOTHERSHIP.initial_state(7, MOTHERSHIP.parse_config(config))
    step = MOTHERSHIP.step(state, answers)
    return step


def test_registry_finds_both_games_and_names_the_known_ones():
    assert get_game("mothership") is MOTHERSHIP
    assert MOTHERSHIP.slug == "mothership"
    assert get_game("galaxy").slug == "galaxy"
    assert set(GAMES) == {"galaxy", "mothership"}
    with pytest.raises(UnknownGame, match="unknown game 'chess'; known games: galaxy, mothership"):
        get_game("chess")
    with pytest.raises(ValueError):
        get_game(None)  # type: ignore[arg-type]


def test_md11_both_seats_are_asked_for_orders_once():
    """MD-11: one orders request per seat, then nothing more."""
    state = MOTHERSHIP.initial_state(1, MOTHERSHIP.parse_config(None))
    assert MOTHERSHIP.requests(state) == {1: Request("orders", {}), 2: Request("orders", {})}
    assert MOTHERSHIP.result(state) is None and MOTHERSHIP.frame(state) is None
    step = MOTHERSHIP.step(state, {1: strong(), 2: ziltoidians()})
    assert step.faults == {}
    assert MOTHERSHIP.requests(step.state) == {}
    with pytest.raises(ValueError, match="single step"):
        MOTHERSHIP.step(step.state, {1: strong(), 2: strong()})


def test_valid_orders_fight_one_event_per_round_and_give_the_md8_result():
    step = played({1: strong(), 2: ziltoidians()})
    expected = battle(strong(), ziltoidians())
    assert len(step.events) == expected.rounds
    assert [e["round"] for e in step.events] == list(range(1, expected.rounds + 1))
    result = result_of(step.state)
    assert result == Result(
        winner=expected.winner,
        outcome=expected.outcome,
        turns=expected.rounds,
        scores={
            "damage_taken": {"1": expected.damage_taken[0], "2": expected.damage_taken[1]},
            "mothership_left": {"1": expected.mothership_left[0], "2": expected.mothership_left[1]},
        },
    )
    assert result.winner == 1
    json.dumps(step.events)  # replay data is plain JSON


def test_md9_through_the_engine():
    """MD-9: the Ziltoidians mirror match is a draw after 3 rounds with no mothership damage."""
    step = played({1: ziltoidians(), 2: ziltoidians()})
    result = result_of(step.state)
    assert (result.winner, result.outcome, result.turns) == (None, "draw", 3)
    assert result.scores["damage_taken"] == {"1": 0, "2": 0}


def test_md12_invalid_orders_forfeit_with_one_line_detail():
    """MD-12: invalid orders disqualify; the other seat wins by forfeit; the detail names the field."""
    bad = ziltoidians()
    bad["fighters"][2]["pattern"][0] = 0
    step = played({1: strong(), 2: bad})
    assert step.faults == {2: Fault("invalid", "fighters[2].pattern[0]: must be an integer >= 1, got 0")}
    assert step.events == []
    assert MOTHERSHIP.result(step.state) == Result(winner=1, outcome="forfeit", turns=0)


def test_md12_both_invalid_is_a_forfeit_draw_and_missing_answer_is_a_protocol_fault():
    step = played({1: {"fighters": []}, 2: {}})
    assert set(step.faults) == {1, 2} and all(f.status == "invalid" for f in step.faults.values())
    assert MOTHERSHIP.result(step.state) == Result(winner=None, outcome="forfeit", turns=0)
    step = played({1: strong()})
    assert step.faults == {2: Fault("protocol", "no reply to the orders request")}
    assert result_of(step.state).winner == 1


def test_orders_are_checked_against_the_match_config():
    config = {"total_points": 60}
    step = played({1: strong(), 2: strong()}, config)
    assert step.faults[1].detail.startswith("points: 100 allocated, at most 60 allowed")


def test_frame_shows_orders_and_final_boards():
    step = played({1: strong(), 2: ziltoidians()})
    frame = frame_of(step.state)
    assert frame["round"] == len(step.events)
    last = step.events[-1]["sides"]
    for seat, orders in ((1, strong()), (2, ziltoidians())):
        side = frame["sides"][seat - 1]
        assert side["seat"] == seat and side["orders"] == orders
        assert side["board"] == {"mothership": last[seat - 1]["mothership"], "fighters": last[seat - 1]["fighters"]}
    bad = played({1: strong(), 2: {}})
    frame = frame_of(bad.state)
    assert frame["round"] == 0 and frame["sides"][1]["orders"] is None
    assert frame["sides"][0]["board"]["mothership"] == 10
    json.dumps(frame)


@pytest.mark.parametrize(
    "answers", [None, {1: "strong", 2: "zilt"}, {1: "strong", 2: "bad"}, {1: "bad", 2: "bad"}]
)
def test_dump_and_load_round_trip(answers):
    named = {"strong": strong(), "zilt": ziltoidians(), "bad": {"mothership": 3}}
    config = MOTHERSHIP.parse_config({"total_points": 120})
    state = MOTHERSHIP.initial_state(99, config)
    if answers is not None:
        MOTHERSHIP.step(state, {seat: named[name] for seat, name in answers.items()})
    data = json.loads(json.dumps(MOTHERSHIP.dump_state(state)))
    loaded = MOTHERSHIP.load_state(data)
    assert MOTHERSHIP.dump_state(loaded) == data
    assert loaded.config == config and loaded.seed == 99
    assert MOTHERSHIP.result(loaded) == MOTHERSHIP.result(state)
    assert MOTHERSHIP.frame(loaded) == MOTHERSHIP.frame(state)
    assert MOTHERSHIP.requests(loaded) == MOTHERSHIP.requests(state)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("seed"), "missing seed"),
        (lambda d: d.update(done="yes"), "done must be true or false"),
        (lambda d: d.update(config={"total_points": -1}), "total_points"),
        (lambda d: d["orders"].update({"3": {}}), "keyed by seat"),
        (lambda d: d["orders"]["1"]["mothership"].update(defence=0), "orders of seat 1: mothership.defence"),
        (lambda d: d["orders"].pop("2"), "exactly one of orders or fault"),
        (lambda d: d.update(faults={"2": {"status": "ok", "detail": ""}}), "fault status"),
    ],
)
def test_load_state_rejects_bad_data_clearly(mutate, message):
    state = MOTHERSHIP.initial_state(1, parse_config(None))
    MOTHERSHIP.step(state, {1: strong(), 2: ziltoidians()})
    data = MOTHERSHIP.dump_state(state)
    mutate(data)
    with pytest.raises(ValueError, match=message):
        MOTHERSHIP.load_state(data)
    with pytest.raises(ValueError, match="must be an object"):
        MOTHERSHIP.load_state([])  # type: ignore[arg-type]


def test_initial_state_rejects_a_non_integer_seed():
    with pytest.raises(ValueError, match="seed must be an integer"):
        MOTHERSHIP.initial_state("1", parse_config(None))  # type: ignore[arg-type]


BOT_SCRIPT = '''
from armada.bot.mothership import MothershipBot, Orders
from armada.bot.runtime import run


class Bot(MothershipBot):
    name = {name!r}

    def orders(self, config):
        return Orders.uniform(40, 7, 5, [2, 2, 3])


run(Bot())
'''


def test_md3_race_name_from_handshake_or_platform_name(tmp_path):
    """MD-3: the race's name is the trimmed handshake name; too long or unprintable: the platform name."""
    import sys

    from armada.referee.connection import BotConnection
    from armada.referee.match import play_match
    from armada.referee.process_bot import ProcessBot

    good = tmp_path / "good.py"
    good.write_text(BOT_SCRIPT.format(name="  The Ziltoidians  "))
    long = tmp_path / "long.py"
    long.write_text(BOT_SCRIPT.format(name="Z" * 41))
    bots: dict[int, BotConnection] = {1: ProcessBot([sys.executable, str(good)], label="zilt-1"),
                                      2: ProcessBot([sys.executable, str(long)], label="zilt-2")}
    outcome = play_match("mothership", bots, seed=3)
    assert [p.name for p in outcome.players] == ["The Ziltoidians", "zilt-2"]
    assert (outcome.result.winner, outcome.result.outcome, outcome.result.turns) == (None, "draw", 3)  # MD-9
