"""`manage.py recompute_ratings`: rebuild the Galaxy ratings from the finished ranked matches."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from armada_web.ladder.recompute import recompute


class Command(BaseCommand):
    help = "Recompute every Galaxy rating from the match history, in the order the matches finished."

    def handle(self, *args: Any, **options: Any) -> None:
        counts = recompute()
        self.stdout.write(f"recomputed {counts['versions']} ratings from {counts['matches']} ranked matches")
