"""Strict reply parsing (docs/protocol.md, "Lines"): what is a protocol error, in JSON's words."""

import pytest

from armada.referee.framing import ProtocolError, decode_reply


@pytest.mark.parametrize("line, detail", [
    (b'{"id": 1, "n": ' + b"1" * 21 + b"}", "integer of 21 digits is too large"),
    (b'{"id": 1, "n": -' + b"9" * 401 + b"}", "integer of 401 digits is too large"),
    (b'{"id": 1, "n": 1e400}', "out of range"),
    (b'"ok"', "reply is a JSON string, not an object"),
    (b"null", "reply is a JSON null, not an object"),
    (b"[1, 2]", "reply is a JSON array, not an object"),
    (b"true", "reply is a JSON boolean, not an object"),
    (b"loading my bot...", r"reply is not valid JSON \(Expecting value at column 1; stdout "
                           r"carries the replies alone: print anything else to stderr, the bot's log\)"),
])
def test_bad_lines_are_protocol_errors_with_plain_details(line, detail):
    with pytest.raises(ProtocolError, match=detail):
        decode_reply(line)


@pytest.mark.parametrize("line", [b"my secret plan: rush P7", b'"my secret plan"'])
def test_the_line_itself_is_kept_apart_from_the_public_detail(line):
    """A security trial: a bot's stray print was quoted in the detail everyone sees; the quote is for the
    bot's log (the referee notes it there, tests/sdk/referee/test_hostile.py), or an RL action's author."""
    with pytest.raises(ProtocolError) as caught:
        decode_reply(line)
    assert caught.value.line is not None and "secret plan" in caught.value.line
    assert "secret" not in caught.value.public() and caught.value.public().endswith("; the line is quoted in the "
                                                                                  "bot's log")
    assert caught.value.quoted().endswith(": " + caught.value.line)


def test_integers_up_to_twenty_digits_are_fine():
    assert decode_reply(b'{"id": 3, "n": -99999999999999999999}')["n"] == -(10**20 - 1)


def test_nan_and_huge_numbers_are_fine_only_inside_a_drawing():
    from armada.drawing import Drawings
    from armada.games.galaxy.engine import GALAXY_BOARD

    line = (b'{"id": 1, "fleets": [], "debug": {"shapes": [{"kind": "dot", "at": [NaN, 1e999]}, '
            b'{"kind": "ring", "at": 3, "color": Infinity}, {"kind": "dot", "at": ' + b"7" * 25 + b'}], '
            b'"text": -Infinity}}')
    reply = decode_reply(line)
    assert reply["fleets"] == []
    drawings = Drawings(GALAXY_BOARD)
    note = drawings.add(1, reply["debug"])
    assert note == ("[armada] drawing, turn 1: 2 shapes ignored (first: shapes[0]: 'at' is not [x, y] with "
                    'numbers); debug.text is not a string ("unacceptable number"): ignored')
    assert drawings.to_dict()["turns"][0]["shapes"] == [{"kind": "ring", "at": 3, "color": "white"}]
    for outside in (b'{"id": 1, "debug": {}, "fleets": [{"n": NaN}]}', b'{"id": 1, "debugs": {"x": Infinity}}',
                    b'{"id": 1, "debug": 1, "n": ' + b"1" * 21 + b"}", b"[NaN]"):
        with pytest.raises(ProtocolError, match="reply is not acceptable JSON"):
            decode_reply(outside)


def test_lone_surrogates_are_protocol_errors_outside_a_drawing():
    """A reply with a lone surrogate escape (the red-team review: it reached the replay, whose UTF-8
    encoding then failed, voiding the match) is refused; a pair is a character; a drawing may."""
    from armada.replay import replay_bytes

    for line in (b'{"id":1,"name":"\\udc80"}', b'{"id":1,"o":{"\\uD800":1}}', b'{"id":1,"o":["a","x\\udfffy"]}'):
        with pytest.raises(ProtocolError, match="lone surrogate"):
            decode_reply(line)
    pair = decode_reply(b'{"id":1,"name":"\\ud83d\\ude80"}')
    assert pair["name"] == "\U0001f680" and replay_bytes(pair)
    assert decode_reply(b'{"id":1,"debug":{"text":"\\udc80"}}')["debug"] == {"text": "\udc80"}

