"""At request `when`, first answers with an older id (stale, must be dropped), then correctly."""
from _raw import good_answer, play, reply


def stale(msg):
    reply({"id": msg["id"] - 1, "n": 99})
    reply({"id": msg["id"] - 1, "n": 99})
    reply(good_answer(msg))


play(stale)
