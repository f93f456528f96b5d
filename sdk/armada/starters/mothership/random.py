"""Mothership Down starter bot "random": legal orders drawn at random.

The weakest starter, a first opponent. Its generator is seeded with ARMADA_BOT_SEED
(`bot_seed()`: the match seed and its seat) and the game config, so `--seed` decides its
orders: the same seed the same orders, another seed others. (The file is named like the standard
`random` module, so it uses Armada's own seeded generator instead.)
"""
# ruff: noqa: A005  (the file name is the bot's name, `builtin:random`)

from __future__ import annotations

import json
import zlib

from armada.bot import bot_seed
from armada.bot.mothership import MothershipBot, MothershipConfig, Orders, random_orders
from armada.bot.runtime import run
from armada.games.rng import Rng


class Bot(MothershipBot):
    name = "Random Raiders"

    def orders(self, config: MothershipConfig) -> Orders:
        text = json.dumps({"seed": bot_seed(default=self.seat), "config": self.raw_config}, sort_keys=True)
        rng = Rng(zlib.crc32(text.encode("utf-8")))
        return random_orders(rng, config)


if __name__ == "__main__":
    run(Bot())
