"""`manage.py season create|entry|teams|open|close|finals|finish ...`: seasons by hand (beat does the
same by their times), who may enter one (its entry rule) and its team rules. Each prints one line saying what it did;
a refusal (a wrong state, bad input, finals that would run past the season's end without
--past-end) exits 1 with the reason and changes nothing; `season finals --dry-run` only says what
the finals would be."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from armada_web.accounts.mail import left_to_beat
from armada_web.games import SPECS
from armada_web.seasons import queries, services
from armada_web.seasons.models import EntryRule, Season, SeasonState
from armada_web.web.errors import DomainError


class Command(BaseCommand):
    help = ("Create a season, choose who may enter it, or move one on: open, close (entries frozen), finals, "
            "finish (docs/seasons.md).")

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True,
                                        metavar="create|entry|teams|open|close|finals|finish")
        create = actions.add_parser("create", help="a new season (upcoming until it opens)")
        create.add_argument("slug")
        create.add_argument("--game", required=True, choices=sorted(SPECS))
        create.add_argument("--name", required=True)
        create.add_argument("--opens", help="ISO 8601 (default: now)")
        create.add_argument("--closes", help="ISO 8601 (default: 30 days after it opens)")
        create.add_argument("--ends", help="ISO 8601 (default: 7 days after it closes)")
        entry = actions.add_parser("entry", help="choose who may enter an upcoming or open season")
        entry.add_argument("slug")
        for each in (create, entry):
            each.add_argument("--entry", choices=EntryRule.values, required=each is entry,
                              help="whose bots enter at the close: everyone (default), not-staff-or-demo "
                                   "(no staff or demo accounts) or invited (the --invite accounts only)")
            each.add_argument("--invite", action="append", default=[], metavar="USERNAME",
                              help="an account whose bots may enter (with --entry invited); repeat it")
        teams = actions.add_parser("teams", help="set an upcoming or open season's team rules")
        teams.add_argument("slug")
        for each in (create, teams):
            each.add_argument("--team-size", type=int, metavar="N",
                              help="an entered team has at most N members (default: the site's limit)")
            each.add_argument("--one-team", action="store_true",
                              help="a person is in at most one entered team")
        for name, text in (("open", "open an upcoming season now"),
                           ("close", "close an open season: each admitted bot's active version becomes its entry"),
                           ("finish", "end a closed season or its finals now, with the standings as they are")):
            actions.add_parser(name, help=text).add_argument("slug")
        start = actions.add_parser("finals", help="begin a closed season's finals (Mothership Down: its result)")
        start.add_argument("slug")
        start.add_argument("--stages", type=int, help="stages of this season's finals (default: ARMADA_FINALS_STAGES)")
        start.add_argument("--games", type=int, help="games per entry per stage (default: ARMADA_FINALS_GAMES)")
        start.add_argument("--dry-run", action="store_true",
                           help="print the plan and when it would be done on every match worker; start "
                                "nothing (an open season: as if it closed now)")
        start.add_argument("--past-end", action="store_true",
                           help="start finals that would be done after the season's end (refused without it: "
                                "started, they cannot be undone and take every match worker until the end)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            with left_to_beat():  # the members' mails go from beat's worker, not into this output
                self.stdout.write(self.run(options))
        except DomainError as exc:
            raise CommandError(str(exc)) from None

    def run(self, options: dict[str, Any]) -> str:
        action = options["action"]
        if action == "create":
            season = services.create_season(slug=options["slug"], game=options["game"], name=options["name"],
                                            opens=options["opens"], closes=options["closes"], ends=options["ends"],
                                            entry_rule=options["entry"], invited=options["invite"],
                                            team_max_members=options["team_size"],
                                            one_team_per_person=options["one_team"])
            return (f"created season {season.slug} ({season.game}, {season.state}): "
                    f"opens {season.opens:%Y-%m-%d %H:%M}, closes {season.closes:%Y-%m-%d %H:%M}, "
                    f"ends {season.ends:%Y-%m-%d %H:%M} UTC; {_who(season)}")
        season = queries.season(options["slug"])
        if action == "entry":
            season = services.set_entry_rule(season=season, entry_rule=options["entry"], invited=options["invite"])
            return f"season {season.slug}: {_who(season)}"
        if action == "teams":
            season = services.set_team_rules(season=season, team_max_members=options["team_size"],
                                             one_team_per_person=options["one_team"])
            return f"season {season.slug}: {_who(season)}"
        if action == "open":
            services.open_season(season=season)
            return f"season {season.slug} is open"
        if action == "close":
            season = services.close_season(season=season)
            count, left = season.entries.count(), season.left_out
            return (f"season {season.slug} is closed with {count} entr{'y' if count == 1 else 'ies'} frozen"
                    + (f"; its team rules left out {len(left)}: {', '.join(left)}" if left else ""))
        if action == "finals" and options["dry_run"]:
            return _planned(services.preview_finals(season=season, stages=options["stages"], games=options["games"]),
                            season, options)
        if action == "finals":
            season = services.start_finals(season=season, stages=options["stages"], games=options["games"],
                                           past_end=options["past_end"])
            if season.state == SeasonState.FINISHED:
                count = season.entries.count()
                if SPECS[season.game].rated:  # fewer than two entries: no finals game to play
                    return (f"season {season.slug} is finished: its {count} "
                            f"{'entry is' if count == 1 else 'entries are'} too few for finals (at least 2), "
                            f"{_standings(season)}")
                unused = [f"--{o}" for o in ("stages", "games") if options[o] is not None]
                return (f"season {season.slug} is finished: the league of its {count} "
                        f"entr{'y' if count == 1 else 'ies'} is its result"
                        + (f" ({' and '.join(unused)} left unused: a league plays no finals)" if unused else ""))
            stages, games = season.stages, season.games
            outlook = queries.finals_outlook(season)
            return (f"season {season.slug} is in its finals: {season.entries.count()} entries, {stages} "
                    f"stage{'s' if stages != 1 else ''} of {games} game{'s' if games != 1 else ''} "
                    f"per entry, {season.matches_total} match{'es' if season.matches_total != 1 else ''}"
                    + (f"; {outlook}" if outlook else ""))
        season = services.finish_season(season=season)
        return f"season {season.slug} is finished: {_standings(season)}"


def _planned(preview: services.FinalsPreview, season: Season, options: dict[str, Any]) -> str:
    """`season finals --dry-run`: what the finals would be, and when done; nothing started."""
    head = f"season {season.slug} (dry run, nothing started{', as if it closed now' if season.state == 'open' else ''})"
    count = preview.entries
    if preview.league:
        return (f"{head} would finish at once: the league of its {count} entr{'y' if count == 1 else 'ies'} "
                "is its result")
    if preview.at_once:
        return (f"{head} would finish at once: its {count} {'entry is' if count == 1 else 'entries are'} too few "
                "for finals (at least 2)")
    stages, games = preview.plan.stages, preview.plan.games
    line = (f"{head} would play its finals: {count} entries, {stages} stage{'s' if stages != 1 else ''} of {games} "
            f"game{'s' if games != 1 else ''} per entry, {preview.matches} match{'es' if preview.matches != 1 else ''}")
    ahead = preview.forecast
    if ahead is None:
        return line
    line += f"; {queries.outlook_said(season, ahead, planned=True)}"
    if ahead.past_end and not options["past_end"]:
        line += "; starting them needs --past-end"
    return line


def _who(season: Season) -> str:
    """Who may enter, in words: "entry: everyone" or "entry: invited accounts only (2 invited)"."""
    label = EntryRule(season.entry_rule).label
    teams = ""
    if season.team_max_members:
        teams += f"; teams of at most {season.team_max_members}"
    if season.one_team_per_person:
        teams += "; one team per person"
    if season.entry_rule == EntryRule.INVITED:
        return f"entry: {label} ({season.invited_users.count()} invited){teams}"
    return f"entry: {label}{teams}"


def _standings(season: Season) -> str:
    count = season.standings.count()
    return f"{count} final standing{'' if count == 1 else 's'} stored"
