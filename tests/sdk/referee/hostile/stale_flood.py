"""At request `when`, writes argv[2] stale replies (an older id) before the right answer."""
from _raw import arg, good_answer, play, reply, write


def flood(msg):
    write(f'{{"id": {msg["id"] - 1}}}\n'.encode() * int(arg(2, "5000")))
    reply(good_answer(msg))


play(flood)
