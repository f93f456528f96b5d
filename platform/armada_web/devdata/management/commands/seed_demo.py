"""Demo data for `make up`: three demo users, each owning a starter bot of each game (idempotent).

The users are marked as demo accounts (`accounts.services.mark_demo`), so a season whose entry
rule keeps demo accounts out leaves their bots out (docs/seasons.md, "Who may enter").

The bots are uploaded through `bots.services.upload_version`, so they are validated like any
upload; once valid, matchmaking pairs the Galaxy ones (three owners) and the Mothership ones
join the league.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from armada.botspec import starter_file
from armada_web.accounts.services import mark_demo
from armada_web.bots import services
from armada_web.bots.models import Bot, VersionStatus

#: username -> the starter each demo user plays, per game.
DEMO = {
    "demo-ada": {"galaxy": "greedy", "mothership": "balanced"},
    "demo-bea": {"galaxy": "prober", "mothership": "greedy"},
    "demo-cyd": {"galaxy": "random", "mothership": "random"},
}


class Command(BaseCommand):
    help = "Create the demo users (marked as demo accounts) and their starter bots, validated; idempotent."

    def handle(self, *args: Any, **options: Any) -> None:
        made = again = 0
        for username, starters in DEMO.items():
            user, _ = User.objects.get_or_create(username=username)
            if user.has_usable_password():
                user.set_unusable_password()
                user.save(update_fields=["password"])
            mark_demo(user=user)
            for game, starter in starters.items():
                name = f"{username.removeprefix('demo-')}-{starter}"
                bot = Bot.objects.filter(game=game, name__iexact=name).first()
                if bot is None:
                    bot = services.create_bot(user=user, name=name, game=game,
                                              description=f"demo bot: the {starter} starter")
                newest = bot.versions.order_by("-number").first()
                if newest is not None:  # a platform failure left it unvalidated (its retries spent while
                    if newest.status == VersionStatus.ERROR and services.revalidate(version=newest):  # no
                        again += 1  # sandbox slot was free, say): validated again, or the demo never plays
                    continue
                services.upload_version(bot=bot, user=user, filename="main.py",
                                        data=starter_file(starter, game).read_text().encode())
                made += 1
        said = [f"{made} bots uploaded"] * bool(made)
        said += [f"{again} validated again after a platform failure"] * bool(again)
        self.stdout.write(f"demo data: {', '.join(said)}" if said else "demo data: already there")
