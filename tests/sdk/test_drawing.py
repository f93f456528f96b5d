"""armada.drawing: a reply's `debug` object checked against the game's board and bounded (issue 27,
D-R-16). Bad input is ignored or clipped with one note, never an exception."""

from __future__ import annotations

import json

import pytest

from armada.drawing import (
    DEFAULT_COLOR,
    MAX_LABEL_CHARS,
    MAX_NOTES,
    MAX_SEAT_BYTES,
    MAX_SHAPES,
    MAX_TEXT_BYTES,
    PALETTE,
    Drawings,
    clean_shape,
    with_drawings,
    without_debug,
)
from armada.games.galaxy.engine import GALAXY_BOARD
from armada.games.mothership.engine import MOTHERSHIP_BOARD


def test_every_kind_is_kept_in_its_plain_form():
    drawings = Drawings(GALAXY_BOARD)
    note = drawings.add(3, {"shapes": [
        {"kind": "dot", "at": 1, "color": "red"},
        {"kind": "ring", "at": [1.25, 2], "color": "blue", "to": 4, "text": "x"},  # note kept, "to" dropped
        {"kind": "line", "at": 1, "to": [3.5, -0.5]},
        {"kind": "arrow", "at": 16, "to": 6, "color": "no-such-colour"},
        {"kind": "label", "at": 7, "text": "  take\n this  ", "color": "green"},
    ], "text": "plan: attack 6", "extra": 1})
    assert note is None
    assert drawings.to_dict() == {"turns": [{"turn": 3, "text": "plan: attack 6", "shapes": [
        {"kind": "dot", "at": 1, "color": "red"},
        {"kind": "ring", "at": [1.25, 2.0], "text": "x", "color": "blue"},
        {"kind": "line", "at": 1, "to": [3.5, -0.5], "color": DEFAULT_COLOR},
        {"kind": "arrow", "at": 16, "to": 6, "color": DEFAULT_COLOR},
        {"kind": "label", "at": 7, "text": "take this", "color": "green"},
    ]}]}
    assert len(PALETTE) == 8 and DEFAULT_COLOR in PALETTE


@pytest.mark.parametrize(("shape", "why"), [
    ("dot", "not an object"),
    ({"kind": "circle", "at": 1}, "unknown kind"),
    ({"kind": ["dot"], "at": 1}, "unknown kind"),
    ({"kind": "dot"}, "'at' is neither"),
    ({"kind": "dot", "at": 17}, "names nothing"),
    ({"kind": "dot", "at": 0}, "names nothing"),
    ({"kind": "dot", "at": "1"}, "names nothing"),
    ({"kind": "dot", "at": True}, "boolean"),
    ({"kind": "dot", "at": [4, 0]}, "off the board"),
    ({"kind": "dot", "at": [0, -0.6]}, "off the board"),
    ({"kind": "dot", "at": [float("nan"), 0]}, "not finite"),
    ({"kind": "dot", "at": [float("inf"), 0]}, "not finite"),
    ({"kind": "dot", "at": [1, True]}, "not [x, y]"),
    ({"kind": "dot", "at": [1, 2, 3]}, "neither"),
    ({"kind": "dot", "at": {"x": 1}}, "neither"),
    ({"kind": "line", "at": 1}, "'to'"),
    ({"kind": "arrow", "at": 1, "to": [9, 9]}, "'to' is off the board"),
    ({"kind": "label", "at": 1}, "needs a text"),
    ({"kind": "label", "at": 1, "text": " \n\t "}, "needs a text"),
    ({"kind": "label", "at": 1, "text": 5}, "needs a text"),
])
def test_a_bad_shape_is_ignored_with_the_reason(shape, why):
    kept, reason = clean_shape(shape, GALAXY_BOARD)
    assert kept is None and why in reason


def test_mothership_names_its_ships_and_the_unit_square():
    kept = [clean_shape({"kind": "dot", "at": at}, MOTHERSHIP_BOARD)[0]
            for at in ("mothership-1", "fighter-2-5", [0, 1], [0.5, 0.25])]
    assert [shape["at"] for shape in kept if shape] == ["mothership-1", "fighter-2-5", [0.0, 1.0], [0.5, 0.25]]
    for bad in ("fighter-1-6", "mothership-3", 1, [1.01, 0]):
        assert clean_shape({"kind": "dot", "at": bad}, MOTHERSHIP_BOARD)[0] is None


def test_bad_shapes_give_one_note_and_the_good_ones_stay():
    drawings = Drawings(GALAXY_BOARD)
    note = drawings.add(2, {"shapes": [{"kind": "dot", "at": 1}, {"kind": "blob"}, 7, {"kind": "dot", "at": 99}]})
    assert note == ("[armada] drawing, turn 2: 3 shapes ignored (first: shapes[1]: unknown kind \"blob\")")
    assert [s["at"] for s in drawings.to_dict()["turns"][0]["shapes"]] == [1]


@pytest.mark.parametrize("raw", [[1, 2], "draw", 5, True, {"shapes": "all"}, {"shapes": {"kind": "dot"}},
                                 {"text": ["a"]}, {"text": {"a": 1}}])
def test_a_debug_value_of_the_wrong_shape_is_noted_and_ignored(raw):
    drawings = Drawings(GALAXY_BOARD)
    note = drawings.add(1, raw)
    assert note is not None and note.startswith("[armada] drawing, turn 1: ") and "ignored" in note
    assert drawings.to_dict() == {"turns": []}


def test_nothing_drawn_gives_no_turn_and_no_note():
    drawings = Drawings(GALAXY_BOARD)
    assert drawings.add(1, None) is None
    assert drawings.add(2, {}) is None
    assert drawings.add(3, {"shapes": [], "text": ""}) is None
    assert drawings.to_dict() == {"turns": []}


def test_past_500_shapes_a_turn_the_rest_is_dropped_with_one_note():
    drawings = Drawings(GALAXY_BOARD)
    dot = {"kind": "dot", "at": 5}
    assert drawings.add(4, {"shapes": [dot] * 300}) is None  # scout
    note = drawings.add(4, {"shapes": [dot] * 300, "text": "command"})  # command: the same turn
    assert note == f"[armada] drawing, turn 4: 100 shapes dropped past the limit of {MAX_SHAPES} a turn"
    turn = drawings.to_dict()["turns"]
    assert len(turn) == 1 and len(turn[0]["shapes"]) == MAX_SHAPES and turn[0]["text"] == "command"
    assert drawings.add(5, {"shapes": [dot] * MAX_SHAPES}) is None  # a new turn starts again
    assert [t["turn"] for t in drawings.to_dict()["turns"]] == [4, 5]


def test_text_is_clipped_to_16_kib_a_turn_and_cleaned():
    drawings = Drawings(GALAXY_BOARD)
    assert drawings.add(1, {"text": "a\x00b\x1b[31m\ud800\tc\nd"}) is None
    assert drawings.to_dict()["turns"][0]["text"] == "ab[31m?\tc\nd"
    note = drawings.add(2, {"text": "é" * MAX_TEXT_BYTES})
    assert note == f"[armada] drawing, turn 2: text clipped to {MAX_TEXT_BYTES} bytes a turn"
    text = drawings.to_dict()["turns"][1]["text"]
    assert len(text.encode("utf-8")) == MAX_TEXT_BYTES and set(text) == {"é"}
    # the same turn's next request (Galaxy's command after its scout) finds the text full: none of it kept
    note = drawings.add(2, {"text": "command"})
    assert note == f"[armada] drawing, turn 2: text dropped: the turn's {MAX_TEXT_BYTES} bytes of text are used"
    assert drawings.to_dict()["turns"][1]["text"] == text
    label = clean_shape({"kind": "label", "at": 1, "text": "x" * 10_000}, GALAXY_BOARD)[0]
    assert label is not None and len(label["text"]) == MAX_LABEL_CHARS


def test_the_match_budget_drops_the_rest_once_said():
    drawings = Drawings(GALAXY_BOARD)
    big = {"text": "t" * MAX_TEXT_BYTES, "shapes": [{"kind": "label", "at": 1, "text": "x" * 80}] * 20}
    notes = [drawings.add(turn, big) for turn in range(1, 200)]
    said = [n for n in notes if n is not None]
    assert len(said) == 1 and "budget of 2097152 bytes is used up" in said[0]
    kept = drawings.to_dict()["turns"]
    assert drawings.bytes <= MAX_SEAT_BYTES
    shapes_and_text = sum(len(json.dumps(s, separators=(",", ":"))) for t in kept for s in t["shapes"])
    assert shapes_and_text + sum(len(t["text"]) for t in kept) == drawings.bytes  # the budget counts exactly
    assert kept[-1]["turn"] == notes.index(said[0]) + 1  # nothing kept after the turn it ran out
    assert drawings.add(300, {"shapes": [{"kind": "dot", "at": 1}]}) is None


def test_notes_stop_after_ten_a_match():
    drawings = Drawings(GALAXY_BOARD)
    notes = [drawings.add(turn, "junk") for turn in range(1, 30)]
    said = [n for n in notes if n]
    assert len(said) == MAX_NOTES and said[-1].endswith("(no more drawing notes this match)")


def test_without_debug_and_the_local_replay_key():
    reply = {"fleets": [], "debug": {"shapes": []}}
    assert without_debug(reply) == {"fleets": []} and "debug" in reply
    plain = {"probes": []}
    assert without_debug(plain) is plain
    replay = {"game": "galaxy"}
    assert with_drawings(replay, {1: {"turns": []}, 2: {"turns": []}}) is replay
    drawn = {1: {"turns": []}, 2: {"turns": [{"turn": 1, "shapes": [], "text": "hi"}]}}
    assert with_drawings(replay, drawn) == {"game": "galaxy", "debug": {"1": {"turns": []}, "2": drawn[2]}}


def test_nesting_and_odd_values_never_raise():
    deep: object = 1
    for _ in range(5000):
        deep = [deep]
    drawings = Drawings(GALAXY_BOARD)
    assert drawings.add(1, {"shapes": [{"kind": "dot", "at": deep}], "text": 3}) is not None
    assert drawings.to_dict() == {"turns": []}


def test_a_flood_of_bad_shapes_costs_the_referee_500_looks_a_reply():
    drawings = Drawings(GALAXY_BOARD)
    note = drawings.add(1, {"shapes": [{"kind": "x"}] * 100_000 + [{"kind": "dot", "at": 1}]})
    assert note == ("[armada] drawing, turn 1: 500 shapes ignored (first: shapes[0]: unknown kind \"x\"); "
                    "99501 shapes dropped past the limit of 500 a turn")
    assert drawings.to_dict() == {"turns": []}


@pytest.mark.parametrize("at", [[10**400, 1], [1, -(10**400)], [10**309, 10**309]])
def test_a_coordinate_too_large_for_a_float_is_off_the_board_not_a_crash(at):
    """JSON integers have no bound: a bot may send 400 digits, which `float()` (and so
    `math.isfinite`) cannot take. An OverflowError here would end the match in the referee."""
    kept, reason = clean_shape({"kind": "dot", "at": at}, GALAXY_BOARD)
    assert kept is None and "off the board" in reason
    drawings = Drawings(GALAXY_BOARD)
    raw = json.loads('{"shapes": [{"kind": "line", "at": 1, "to": ' + json.dumps(at) + '}]}')
    note = drawings.add(1, raw)
    assert note is not None and "'to' is off the board" in note
    assert drawings.to_dict() == {"turns": []}
