"""`manage.py seed_scale --bots N --matches M --races R [--seed S] [--replays K] [--force]`: a season's
data for scale tests and benches (armada_web.devdata.scale; docs/operations.md)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from armada_web.devdata.scale.seed import seed_scale
from armada_web.web.errors import DomainError


class Command(BaseCommand):
    help = ("Fill an empty database with a season: N Galaxy bots of users holding several, M matches rated as "
            "the ladder rates them, a Mothership Down league of R races (COPY on PostgreSQL).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bots", type=int, required=True, help="Galaxy bots (each plays one version now)")
        parser.add_argument("--matches", type=int, required=True, help="Galaxy matches over the season")
        parser.add_argument("--races", type=int, required=True, help="Mothership Down races in the league")
        parser.add_argument("--seed", type=int, default=1, help="the random seed (the same seed, the same data)")
        parser.add_argument("--replays", type=int, default=100, help="newest ranked matches really played, "
                            "with their replays and logs stored (the rest as if pruned)")
        parser.add_argument("--force", action="store_true", help="add to a database that has users already")

    def handle(self, *args: Any, **options: Any) -> None:
        bars: dict[str, tqdm[Any]] = {}

        def progress(stage: str, done: int, total: int) -> None:
            bar = bars.get(stage)
            if bar is None:
                bar = bars[stage] = tqdm(total=total, desc=stage, unit=" rows" if stage != "matches" else " matches",
                                         disable=options["verbosity"] == 0, file=self.stderr._out)
            bar.update(done - bar.n)
            if done >= total:
                bar.close()

        try:
            seeded = seed_scale(bots=options["bots"], matches=options["matches"], races=options["races"],
                                seed=options["seed"], replays=options["replays"], force=options["force"],
                                progress=progress)
        except DomainError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"seeded {seeded.users} users, {seeded.bots} bots, {seeded.versions} versions, "
                          f"{seeded.matches} matches, a league of {seeded.races} races in {seeded.seconds:.0f} s")
