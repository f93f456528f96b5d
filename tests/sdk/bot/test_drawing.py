"""`self.debug` of the bot library (issue 27): shapes and text drawn while answering one request,
cleared before the next, attached to the reply as its `debug` object; always a reply that fits."""

from __future__ import annotations

import json

from armada.bot.base import BaseBot
from armada.bot.drawing import Drawing
from armada.bot.runtime import respond
from armada.drawing import MAX_SHAPES, MAX_TEXT_BYTES


class Sketcher(BaseBot):
    def __init__(self) -> None:
        self.plan: list = []

    def answer(self, request):
        for step in self.plan.pop(0) if self.plan else []:
            step(self.debug)
        return {"ok": True}


def test_every_helper_writes_its_shape():
    drawing = Drawing()
    drawing.dot(3, color="red")
    drawing.ring((1, 2))
    drawing.line(1, [2.5, 0])
    drawing.arrow("fighter-1-2", "mothership-2", color="blue")
    drawing.label(7, "  two\nlines  ")
    drawing.text("turn", 4)
    drawing.text("second line")
    assert drawing.to_json() == {"shapes": [
        {"kind": "dot", "at": 3, "color": "red"},
        {"kind": "ring", "at": [1, 2], "color": "white"},
        {"kind": "line", "at": 1, "to": [2.5, 0], "color": "white"},
        {"kind": "arrow", "at": "fighter-1-2", "to": "mothership-2", "color": "blue"},
        {"kind": "label", "at": 7, "text": "two lines", "color": "white"},
    ], "text": "turn 4\nsecond line"}
    drawing.clear()
    assert drawing.to_json() is None


def test_a_planet_object_is_drawn_by_its_id():
    from armada.bot.galaxy.messages import Planet

    planet = Planet.__new__(Planet)
    object.__setattr__(planet, "id", 9)
    drawing = Drawing()
    drawing.dot(planet)
    assert drawing.to_json() == {"shapes": [{"kind": "dot", "at": 9, "color": "white"}]}


def test_numpy_numbers_are_drawn_as_plain_ones():
    """An SDK trial: a policy's np.int64 target (`argmax`) or np.float32 point was dropped as "an
    object as a point", though numpy's integers are fine in orders."""
    np = __import__("pytest").importorskip("numpy")
    drawing = Drawing()
    drawing.arrow(1, np.int64(6))
    drawing.dot((np.float32(1.5), np.int32(2)))
    drawing.label(np.uint8(3), "x")
    drawing.ring(np.array([1.0, 2.0]))  # a position as a policy holds it (a review)
    drawing.dot(np.array(4))
    written = drawing.to_json()
    assert written == {"shapes": [
        {"kind": "arrow", "at": 1, "to": 6, "color": "white"},
        {"kind": "dot", "at": [1.5, 2], "color": "white"},
        {"kind": "label", "at": 3, "text": "x", "color": "white"},
        {"kind": "ring", "at": [1.0, 2.0], "color": "white"},
        {"kind": "dot", "at": 4, "color": "white"},
    ]}
    assert drawing.unwritable == 0 and json.dumps(written)  # plain JSON, nothing left out
    assert [type(v) for v in written["shapes"][1]["at"]] == [float, int]


def test_the_drawing_goes_with_its_reply_and_is_cleared_before_the_next():
    bot = Sketcher()
    bot.plan = [[lambda d: d.dot(1), lambda d: d.text("hello")], [], [lambda d: d.ring(2)]]
    first = respond(bot, {"type": "scout", "id": 1})
    assert first == {"id": 1, "ok": True, "debug": {"shapes": [{"kind": "dot", "at": 1, "color": "white"}],
                                                    "text": "hello"}}
    assert respond(bot, {"type": "command", "id": 2}) == {"id": 2, "ok": True}  # nothing drawn: no key
    third = respond(bot, {"type": "scout", "id": 3})
    assert third["debug"] == {"shapes": [{"kind": "ring", "at": 2, "color": "white"}]}


def test_a_bot_that_never_draws_sends_no_debug_key():
    bot = Sketcher()
    assert respond(bot, {"type": "scout", "id": 1}) == {"id": 1, "ok": True}
    assert "debug" not in bot.__dict__  # never made


def test_a_bot_of_its_own_debug_attribute_keeps_working():
    class Verbose(Sketcher):
        def __init__(self) -> None:
            super().__init__()
            self.debug = True  # the author's own flag: the library leaves it alone

    assert respond(Verbose(), {"type": "scout", "id": 1}) == {"id": 1, "ok": True}


def test_past_the_limits_the_reply_still_fits(capsys):
    bot = Sketcher()
    bot.plan = [[lambda d: [d.dot(1) for _ in range(MAX_SHAPES + 50)],
                 lambda d: d.text("x" * (MAX_TEXT_BYTES * 2)),
                 lambda d: d.dot((float("nan"), 1)),
                 lambda d: d.label(2, "y" * 1000)]]
    reply = respond(bot, {"type": "scout", "id": 1})
    drawn = reply["debug"]
    assert len(drawn["shapes"]) == MAX_SHAPES and len(drawn["text"]) == MAX_TEXT_BYTES
    json.dumps(reply, allow_nan=False)  # the NaN point was never added past the cap, and would be left out
    err = capsys.readouterr().err
    assert "[armada] drawing: 52 shapes past the limit of 500 a request were not sent" in err
    assert f"the text was cut to its limit of {MAX_TEXT_BYTES} bytes a request ({MAX_TEXT_BYTES} bytes not sent)" in err


def test_a_shape_json_cannot_carry_is_left_out_with_a_line_in_the_log(capsys):
    """A trial: the NaN dot and the clipped text went without the log line bot-library.md promises."""
    bot = Sketcher()
    bot.plan = [[lambda d: d.dot((float("nan"), 1)), lambda d: d.dot(object()), lambda d: d.dot(4)], []]
    reply = respond(bot, {"type": "scout", "id": 1})
    assert reply["debug"] == {"shapes": [{"kind": "dot", "at": 4, "color": "white"}]}
    assert capsys.readouterr().err == ("[armada] drawing: 2 shapes JSON cannot write (NaN, infinity or an object "
                                       "as a point) were not sent\n")
    respond(bot, {"type": "command", "id": 2})
    assert capsys.readouterr().err == ""  # said for the request that lost them only


def test_the_library_s_notes_stop_after_ten_a_match(capsys):
    """A trial: a bot drawing NaN every turn wrote 200 identical lines (45 KB of log); the referee's own
    notes stop at 10 a match, so do the library's."""
    from armada.drawing import MAX_NOTES

    bot = Sketcher()
    bot.plan = [[lambda d: d.dot((float("nan"), 1))] for _ in range(MAX_NOTES + 5)]
    for number in range(MAX_NOTES + 5):
        respond(bot, {"type": "scout", "id": number})
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == MAX_NOTES and lines[-1].endswith("(no more drawing notes this match)")
    assert "no more" not in lines[0]
    bot.plan = [[lambda d: d.dot((float("nan"), 1))]]  # the same bot object in a new match: notes anew
    respond(bot, {"type": "init", "id": 0})
    respond(bot, {"type": "scout", "id": 1})
    assert "drawing:" in capsys.readouterr().err


def test_text_with_a_lone_surrogate_is_sent_not_a_crash():
    """A lone surrogate (say from a file name) in a text or label crashed the bot: UTF-8 cannot write it."""
    bot = Sketcher()
    bot.plan = [[lambda d: d.text("a\ud800b"), lambda d: d.label(1, "x\udc00"),
                 lambda d: d.dot("mothership-\ud800", color="red\udc00")]]
    reply = respond(bot, {"type": "scout", "id": 1})
    assert reply["debug"] == {"shapes": [{"kind": "label", "at": 1, "text": "x?", "color": "white"},
                                         {"kind": "dot", "at": "mothership-?", "color": "red?"}], "text": "a?b"}
    json.dumps(reply, ensure_ascii=False).encode("utf-8")


def test_the_fallback_reply_keeps_what_was_drawn_before_the_error():
    class Crashy(Sketcher):
        def answer(self, request):
            self.debug.text("about to fail")
            raise ZeroDivisionError("oops")

        def fallback(self, request):
            return {"ok": False}

    reply = respond(Crashy(), {"type": "scout", "id": 1, "turn": 1})
    assert reply == {"id": 1, "ok": False, "debug": {"shapes": [], "text": "about to fail"}}
