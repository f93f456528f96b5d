"""The bot library: write a bot as a class, end the script with `run(MyBot())` (docs/bot-library.md)."""

from armada.bot.base import bot_seed

__all__ = ["bot_seed"]
