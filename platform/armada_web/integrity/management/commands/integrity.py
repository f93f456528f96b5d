"""`manage.py integrity [--season SLUG] [--json]`: run every integrity check (copied code, shared
accounts, thrown games) for a season or, without one, all of ranked play, and print the report
(every finding kept, as the staff page lists them), strongest first: one line per finding with
its reason and links to its evidence, or with `--json`
`{"findings": [{"kind", "subjects", "score", "reason", ...}]}` (docs/integrity.md).
An unknown season exits 1 with the reason."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from armada_web.accounts.mail import left_to_beat
from armada_web.integrity import queries
from armada_web.integrity.checks import run_checks
from armada_web.integrity.logic.report import line_of
from armada_web.seasons import queries as season_queries
from armada_web.web.errors import DomainError


class Command(BaseCommand):
    help = "Run the integrity checks and print the ranked report (docs/integrity.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--season", metavar="SLUG", help="a season's slug (default: all of ranked play)")
        parser.add_argument("--json", action="store_true", help='print {"findings": [...]}, strongest first')

    def handle(self, *args: Any, **options: Any) -> None:
        if options["season"] is not None and not options["season"].strip():  # an empty shell variable (a trial)
            raise CommandError("--season needs a season's slug; leave it out to check all of ranked play")
        try:
            season = season_queries.season(options["season"]) if options["season"] is not None else None
            with left_to_beat():  # any mail goes from beat's worker, not into this report
                run_checks(season=season, ran_by="manage.py integrity")  # the audit log's who
        except DomainError as exc:
            raise CommandError(str(exc)) from None
        # the report as the staff page shows it: what this run found, and the findings kept beside
        # (staff's decisions, those whose subject is gone), so the two never disagree
        found = list(queries.findings(season=season))
        if options["json"]:
            rows = [{"kind": f.kind, "subjects": f.subjects, "score": f.score, "reason": f.reason, "id": f.pk,
                     "status": f.status, "links": [link.url for link in queries.links(f)]} for f in found]
            self.stdout.write(json.dumps({"findings": rows}, indent=1))
            return
        scope = f"season {season.slug}" if season else "all of ranked play"
        self.stdout.write(f"integrity report for {scope}: {len(found)} finding{'s' * (len(found) != 1)}, "
                          "strongest first")
        for rank, f in enumerate(found, start=1):
            self.stdout.write(line_of(rank=rank, kind=f.kind, score=f.score, status=f.status, subjects=f.subjects,
                                      reason=f.reason, links=[link.url for link in queries.links(f)]))
