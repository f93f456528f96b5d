"""`manage.py seed_integrity [--seed S]`: the integrity report's inputs (sources, planted copies,
sightings, thrown games, a closed season) added to a database `seed_scale` filled
(armada_web.devdata.scale.suspects; docs/integrity.md, "At scale")."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from armada_web.devdata.scale.suspects import seed_integrity


class Command(BaseCommand):
    help = ("Add what the integrity report reads to a scale seed: every Galaxy version's sources (planted copies "
            "among them), sightings of 10,000 accounts, thrown games and a closed season of the playing versions.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=1, help="the random seed (the same seed, the same data)")
        parser.add_argument("--planted", metavar="PATH", help="write the planted cases there as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        planted = seed_integrity(seed=options["seed"])
        if options["planted"]:
            Path(options["planted"]).write_text(json.dumps(dataclasses.asdict(planted)), encoding="utf-8")
        self.stdout.write(", ".join(f"{count} {what}" for what, count in planted.counts.items()))
