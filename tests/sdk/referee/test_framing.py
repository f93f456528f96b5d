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
])
def test_bad_lines_are_protocol_errors_with_plain_details(line, detail):
    with pytest.raises(ProtocolError, match=detail):
        decode_reply(line)


def test_integers_up_to_twenty_digits_are_fine():
    assert decode_reply(b'{"id": 3, "n": -99999999999999999999}')["n"] == -(10**20 - 1)
