"""Season reads for the API and the pages: the seasons, one season's standings (live while open,
the finals' order during them, the stored ones once finished), the finals' progress, the
current season, a bot's placements."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import F, FloatField, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from armada_web.bots.models import Bot
from armada_web.games import spec
from armada_web.ladder import league
from armada_web.ladder.logic import ratings
from armada_web.ladder.matchmaking import ranked_versions
from armada_web.ladder.models import score_of
from armada_web.ladder.queries import ladder
from armada_web.matches.capacity import known_workers
from armada_web.matches.models import MatchStatus
from armada_web.seasons import finals
from armada_web.seasons.entries import Seeding, admitted, may_enter, order, seeding, skill_of, usernames_by_team
from armada_web.seasons.logic import finals as finals_logic
from armada_web.seasons.models import BEFORE_CLOSE, Entry, EntryRule, FinalsGame, Season, SeasonState, Standing
from armada_web.teams.logic.names import DELETED_USER
from armada_web.web.errors import NotFound
from armada_web.web.inputs import storable


def seasons() -> QuerySet[Season]:
    """Every season, the latest to open first."""
    return Season.objects.order_by("-opens", "-id")


def season(slug: str) -> Season:
    if not isinstance(slug, str) or not storable(slug):  # a form's `season` (a NUL: a database error)
        raise NotFound("no such season")
    if not slug.strip():  # a form sent without one chosen (the disqualify form's "no season ")
        raise NotFound("no season chosen: choose one")
    found = Season.objects.filter(slug=slug).first()
    if found is None:
        raise NotFound(f"no season {slug}")
    return found


def current_season(now: datetime | None = None) -> Season | None:
    """The season the home page shows: the running one closest to its next time, else the next to open."""
    now = now or timezone.now()
    running = Season.objects.filter(state__in=[SeasonState.OPEN, SeasonState.CLOSED, SeasonState.FINALS])
    return running.order_by("closes", "id").first() or \
        Season.objects.filter(state=SeasonState.UPCOMING).order_by("opens", "id").first()


def any_season() -> bool:
    """Whether the site has a season at all (finished ones too)."""
    return Season.objects.exists()


def next_time(season: Season) -> tuple[str, datetime] | None:
    """What happens next to `season` and when (for a countdown), or None once finished."""
    if season.state == SeasonState.UPCOMING:
        return "opens", season.opens
    if season.state == SeasonState.OPEN:
        return "closes", season.closes
    if season.state in (SeasonState.CLOSED, SeasonState.FINALS):
        return "ends", season.ends
    return None


def team_rule_seeding(season: Season) -> Seeding | None:
    """While `season` is open and has team rules: who would enter and who its rules would leave out
    (`entries.seeding`), computed once for a page (`standings`, `entry_count` and `left_out_by_team_rules`
    take it); None otherwise, when none of them needs it."""
    if season.state not in BEFORE_CLOSE or not (season.team_max_members or season.one_team_per_person):
        return None
    return seeding(season)


def entry_count(season: Season, *, seeded: Seeding | None = None) -> int:
    """Frozen entries, or while it is open the bots that would enter if it closed now (its entry
    rule applied, and its team rules as the close applies them: `entries.seeding`)."""
    if season.state not in BEFORE_CLOSE:
        return season.entries.count()
    seeded = seeded or team_rule_seeding(season)
    if seeded is not None:
        return len(seeded.entering)
    rows = ranked_versions(season.game) if spec(season.game).rated else league.active_races()
    return int(admitted(season=season, rows=rows).count())


def left_out_by_team_rules(season: Season, *, seeded: Seeding | None = None) -> list[str]:
    """The bots its team rules would leave out if it closed now (open), or left out at its close,
    as "BOT (TEAM)" (every bot's team is public, as its page shows)."""
    if season.state not in BEFORE_CLOSE:
        return list(season.left_out or [])
    seeded = seeded or team_rule_seeding(season)
    return seeded.named_left_out() if seeded is not None else []


@dataclass(frozen=True)
class Entering:
    """Who may enter a season, as the page and the API say it."""

    #: The rule's value (EntryRule) and its words.
    rule: str
    label: str
    #: How many accounts are invited (an invited-only season), else None.
    invited: int | None
    #: Whether the viewer's bots may enter (None: nobody signed in).
    viewer: bool | None


def entering(season: Season, user: Any = None) -> Entering:
    """The season's entry rule and whether `user` (a signed-in account, or None) may enter."""
    rule = EntryRule(season.entry_rule)
    invited = season.invited_users.count() if rule == EntryRule.INVITED else None
    # (a closed season's entries are frozen: nobody's bots may enter it any more)
    viewer = (may_enter(season=season, user=user) and season.state in BEFORE_CLOSE) \
        if user is not None and user.is_authenticated else None
    return Entering(rule.value, rule.label, invited, viewer)


@dataclass(frozen=True)
class Row:
    """One line of a season's standings, whichever state it is in."""

    place: int
    bot_id: int | None
    bot_name: str
    owner: str
    version_id: int | None
    version_number: int | None
    score: float
    games: int
    stage: int = 1
    #: The bot still exists (its page can be linked).
    linked: bool = True
    #: Its team (id and name; None for a row from before teams) and the team's members' usernames
    #: (live: now; frozen at the close once it has closed).
    team_id: int | None = None
    team_name: str = ""
    members: tuple[str, ...] = ()

    @property
    def members_shown(self) -> tuple[str, ...]:
        """The members a page names beside the team: none when they are only the team's own name, as in
        a personal team ("alice", not "alice (alice)"; a deleted account's: "(deleted user) ((deleted
        user))", an organiser's trial)."""
        return () if self.members == (self.team_name,) else self.members


def _owner(user: Any) -> str:
    return user.username if user is not None else DELETED_USER


def standings(season: Season, *, seeded: Seeding | None = None) -> list[Row]:
    """The season's standings now: stored (finished), the finals' order (closed, finals), or the
    live ladder or league table (upcoming, open; `seeded`: its `team_rule_seeding`, when computed)."""
    if season.state == SeasonState.FINISHED:
        rows = Standing.objects.filter(season=season).select_related("owner").order_by("place")
        existing = set(Entry.objects.filter(season=season, bot__isnull=False).values_list("bot_ref", flat=True))
        return [Row(s.place, s.bot_ref, s.bot_name, _owner(s.owner), s.version_ref, s.version_number, s.score,
                    s.games, s.stage, s.bot_ref in existing, s.team_ref, s.team_name, tuple(s.members))
                for s in rows]
    if season.state in BEFORE_CLOSE:
        return _live(season, seeded or team_rule_seeding(season))
    rated = spec(season.game).rated
    entries = list(Entry.objects.filter(season=season).select_related("owner"))
    ranked = order(entries) if rated else sorted(entries, key=lambda e: (e.place or e.seed, e.seed))
    return [Row(place, e.bot_ref, e.bot_name, _owner(e.owner), e.version_ref, e.version_number,
                round(finals_logic.score(skill_of(e)), 3) if rated else float(e.points or 0), e.games, e.stage,
                e.bot_id is not None, e.team_ref, e.team_name, tuple(e.members))
            for place, e in enumerate(ranked, start=1)]


def _live(season: Season, seeded: Seeding | None) -> list[Row]:
    """The ladder or the league of the bots that would enter if the season closed now (its entry
    rule, and its team rules as the close applies them: `seeded`, None without team rules), placed
    among themselves."""
    owner = "version__bot__owner"
    kept = {v.pk for v in seeded.entering} if seeded is not None else None
    if spec(season.game).rated:
        rated = [r for r in admitted(season=season, rows=ladder(season.game), owner=owner)
                 if kept is None or r.version_id in kept]
        members = usernames_by_team(sorted({r.version.bot.team_id for r in rated}))
        return [Row(place, r.version.bot_id, r.version.bot.name, _owner(r.version.bot.owner), r.version_id,
                    r.version.number, round(r.score, 3), r.games, 1, True, *_team(r.version.bot.team, members))
                for place, r in enumerate(rated, 1)]
    table = [e for e in admitted(season=season, rows=league.table(), owner=owner)
             if kept is None or e.version_id in kept]
    members = usernames_by_team(sorted({e.version.bot.team_id for e in table}))
    return [Row(place, e.version.bot_id, e.version.bot.name, _owner(e.version.bot.owner), e.version_id,
                e.version.number, float(e.points), e.played, 1, True, *_team(e.version.bot.team, members))
            for place, e in enumerate(table, 1)]


def _team(team: Any, members: dict[int, list[str]]) -> tuple[int, str, tuple[str, ...]]:
    return team.pk, team.name, tuple(members.get(team.pk, ()))


@dataclass(frozen=True)
class Progress:
    """Where a season's finals are."""

    stage: int
    stages: int
    round: int
    rounds: int
    matches_done: int
    matches_total: int
    workers: int
    estimate: datetime | None
    #: Entries playing in the current stage.
    playing: int
    #: Entries withdrawn since the close (disqualified): their games left both counts.
    withdrawn: int = 0
    #: A finished season's finals matches its finish left unplayed (`Season.finals_cut`), and what cut them.
    cut: int = 0
    cut_by: str = ""


def progress(season: Season) -> Progress | None:
    """The finals' progress (None before the finals began)."""
    if season.stages is None or season.state not in (SeasonState.FINALS, SeasonState.FINISHED):
        return None
    plan = finals.plan_of(season)
    return Progress(stage=season.stage, stages=plan.stages, round=season.round + 1,
                    rounds=finals_logic.rounds_in_stage(plan.games), matches_done=finals.matches_done(season),
                    matches_total=season.matches_total, workers=season.finals_workers,
                    estimate=finals.estimate(season),
                    playing=season.entries.filter(stage__gte=season.stage).count(), withdrawn=season.withdrawn,
                    cut=season.finals_cut, cut_by=_cut_by(season))


def _cut_by(season: Season) -> str:
    """What finished a season before its finals' last game: its end, or the organisers before it."""
    if not season.finals_cut or season.finished_at is None:
        return ""
    return "when the organisers finished the season" if season.finished_at < season.ends else "by the end of the season"


@dataclass(frozen=True)
class Phase:
    """Which part of its life a season is in, as the pages show it."""

    live: bool
    finals: bool
    finished: bool


def phase(season: Season) -> Phase:
    return Phase(live=season.state in BEFORE_CLOSE, finals=season.state == SeasonState.FINALS,
                 finished=season.state == SeasonState.FINISHED)


@dataclass(frozen=True)
class TopMatch:
    """A finals match between well placed entries, for the viewer."""

    match_id: int
    stage: int
    first: str
    second: str
    result: str
    #: The two entries' teams' names.
    first_team: str = ""
    second_team: str = ""


def top_matches(season: Season, limit: int = 12) -> list[TopMatch]:
    """The finished finals matches of the latest stage played, between the best placed entries first."""
    games = FinalsGame.objects.filter(season=season, counted=True, match__status=MatchStatus.FINISHED) \
        .select_related("match", "first", "second")
    latest = games.order_by("-stage").values_list("stage", flat=True).first()
    if latest is None:
        return []
    places = {row.bot_id: row.place for row in standings(season)}
    chosen = list(games.filter(stage=latest))
    chosen.sort(key=lambda g: (min(places.get(g.first.bot_ref, g.first.seed), places.get(g.second.bot_ref,
                                                                                        g.second.seed)),
                               -(g.match.finished or g.match.created).timestamp() if g.match else 0))
    out = []
    for g in chosen[:limit]:
        assert g.match is not None
        winner = (g.match.outcome or {}).get("winner")
        result = "draw" if winner is None else f"{(g.first if winner == 1 else g.second).bot_name} won"
        out.append(TopMatch(g.match.pk, g.stage, g.first.bot_name, g.second.bot_name, result, g.first.team_name,
                            g.second.team_name))
    return out


@dataclass(frozen=True)
class Placement:
    """A bot in a season: its place (final, or now) and the season."""

    season: Season
    place: int | None
    final: bool
    score: float | None


def placements_of_bot(bot_id: int) -> list[Placement]:
    """The bot's seasons: its final place in the finished ones, its entry in those running."""
    out: list[Placement] = []
    finished = Standing.objects.filter(bot_ref=bot_id).select_related("season").order_by("-season__ends")
    out += [Placement(s.season, s.place, True, s.score) for s in finished]
    running = Entry.objects.filter(bot_ref=bot_id).exclude(season__state=SeasonState.FINISHED) \
        .select_related("season").order_by("-season__ends")
    for entry in running:
        place = standings_place(entry) if entry.season.state not in BEFORE_CLOSE else None
        out.append(Placement(entry.season, place, False, None))
    return out


def standings_place(entry: Entry) -> int:
    """The entry's place in its closed or finals season's standings now, counted in the database
    (the entries ahead of it in `standings`' order), not by reading the season's entries."""
    season_entries = Entry.objects.filter(season_id=entry.season_id)
    if spec(entry.season.game).rated:  # finals_logic.ordered: later stage, higher score, better seed, id
        score = finals_logic.score(skill_of(entry))
        rows = season_entries.annotate(sort_key=Coalesce(
            score_of(), score_of("ladder_mu", "ladder_sigma"),
            Value(finals_logic.score(ratings.initial_rating())), output_field=FloatField()))
        same = Q(stage=entry.stage, sort_key=score)
        ahead = (Q(stage__gt=entry.stage) | Q(stage=entry.stage, sort_key__gt=score) | (same & Q(seed__lt=entry.seed))
                 | (same & Q(seed=entry.seed, pk__lt=entry.pk)))
    else:  # the league's place once played, else the seed
        key = entry.place or entry.seed
        rows = season_entries.annotate(sort_key=Coalesce(F("place"), F("seed")))
        ahead = Q(sort_key__lt=key) | Q(sort_key=key, seed__lt=entry.seed)
    return 1 + rows.filter(ahead).count()


@dataclass(frozen=True)
class BotPlacement:
    """A listed bot's season (a team's results): its final place and score, or its entry while
    the season runs (no place counted: that is the season's page)."""

    season: Season
    bot_id: int
    bot_name: str
    place: int | None
    final: bool
    score: float | None
    #: The bot still exists (its page can be linked).
    linked: bool = True


def placements_of_team(team_id: int, limit: int = 50) -> list[BotPlacement]:
    """The seasons a team entered, with the place each of its entries took, the latest first: the
    rows it entered (their team at the close), whichever team their bots are in now (a bot moved
    to a shared team after a season leaves that result with the team that earned it: a trial)."""
    return _placements(Q(team_ref=team_id), limit)


def _placements(rows: Q, limit: int) -> list[BotPlacement]:
    finished = list(Standing.objects.filter(rows).select_related("season").order_by("-season__ends", "place")[:limit])
    running = list(Entry.objects.filter(rows).exclude(season__state=SeasonState.FINISHED)
                   .select_related("season").order_by("-season__ends", "seed")[:limit])
    refs = {s.bot_ref for s in finished} | {e.bot_ref for e in running}
    alive = set(Bot.objects.filter(pk__in=refs).values_list("pk", flat=True))
    return ([BotPlacement(e.season, e.bot_ref, e.bot_name, None, False, None, e.bot_ref in alive) for e in running]
            + [BotPlacement(s.season, s.bot_ref, s.bot_name, s.place, True, s.score, s.bot_ref in alive)
               for s in finished])


def finals_outlook(season: Season, now: datetime | None = None) -> str:
    """For the organiser who just planned the finals: when, on every match worker there is, the
    planned matches would be done, and a warning when the finals would take every worker for that
    (`finals.workers_needed`'s rule: ranked play and events wait), or run past the season's `ends`;
    "" without a plan or workers."""
    if season.state != SeasonState.FINALS:
        return ""
    ahead = finals.forecast(season, season.matches_total, known_workers(), now or timezone.now())
    return outlook_said(season, ahead) if ahead is not None else ""


def outlook_said(season: Season, ahead: finals.Forecast, planned: bool = False) -> str:
    """`ahead` in words (finals_outlook's); `planned`: of finals not started (`season finals --dry-run`)."""
    workers = ahead.workers
    on = f"all {workers} workers" if workers != 1 else "the 1 worker"
    seasons = "season's" if ahead.others == 1 else "seasons'"
    behind = f" shared with {ahead.others} other {seasons} finals" if ahead.others else ""
    line = (f"at about {ahead.match_seconds:.0f} s a match on {on}{behind}, done about {ahead.done:%Y-%m-%d %H:%M} UTC")
    # The finals claim every worker once the matches left need them all with the claim's margin
    # (finals.workers_needed): from then on ranked play and events wait.
    if ahead.takes_all:
        line += (f"; WARNING: that {'would take' if planned else 'takes'} every match worker until it is done "
                 "(ranked play and events wait)"
                 + (f", and it is after the season's end ({season.ends:%Y-%m-%d %H:%M} UTC), when the standings "
                    "as they are become final" if ahead.past_end else "")
                 + ("" if planned else f"; `season finish {season.slug}` ends the finals now"))
    return line
