"""`manage.py queues`: every Celery queue (role, name from its setting, messages waiting);
`manage.py queues --worker validation|matches|periodic`: the `-Q` list of that kind of worker, the
one way make up, the app image and the docs name a worker's queues (armada_web.jobs.queues)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from armada_web.jobs import broker, queues


class Command(BaseCommand):
    help = "List the Celery queues and their depths, or print a kind of worker's -Q list"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--worker", choices=sorted(queues.WORKERS),
                            help="print the comma-separated queues a worker of this kind serves")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["worker"]:
            self.stdout.write(",".join(queues.worker_queues(options["worker"])))
            return
        depths = broker.depths()
        for role, name in queues.names().items():
            depth = depths.get(name)
            self.stdout.write(f"{role:<11} {name:<24} {'?' if depth is None else depth:>6}  {queues.queue(role).doc}")
