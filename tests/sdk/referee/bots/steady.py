"""A well-behaved sum race bot written with the bot library: always adds N (argv[1], default 1)."""

import sys

from armada.bot.base import BaseBot
from armada.bot.runtime import run


class Steady(BaseBot):
    name = "  Steady Eddie  "

    def __init__(self, step: int) -> None:
        self.step = step

    def answer(self, request):
        print("thinking about turn", request["turn"])  # must land in the log, not on the protocol stream
        return {"n": self.step}


if __name__ == "__main__":
    run(Steady(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
