"""Season writes: create one, choose who may enter it, and move it through its states (upcoming ->
open -> closed -> finals -> finished). The admin, `manage.py season ...` and beat (`seasons.periodic.tick`) all call
these; each locks the season's row, checks its state and refuses with Conflict (what state it is
in and what would be needed) or Invalid, changing nothing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from armada_web.games import spec
from armada_web.matches.capacity import known_workers
from armada_web.seasons import entries, finals
from armada_web.seasons.logic import finals as finals_logic
from armada_web.seasons.models import BEFORE_CLOSE, Entry, EntryRule, Season, SeasonState, Standing, state_said
from armada_web.seasons.signals import season_closed, season_finished
from armada_web.teams.logic.names import DELETED_USER
from armada_web.teams.models import Membership
from armada_web.web.errors import Conflict, Invalid
from armada_web.web.inputs import shown_name_problem
from armada_web.web.times import parse_time

log = logging.getLogger(__name__)

SLUG_RE = re.compile(r"[a-z0-9][a-z0-9-]{1,49}")
NAME_MAX = 100
#: The contract's defaults: closes 30 days after it opens, ends a week after it closes.
OPEN_FOR = timedelta(days=30)
FINALS_FOR = timedelta(days=7)


@dataclass(frozen=True)
class SeasonInput:
    """A season's checked fields."""

    slug: str
    game: str
    name: str
    opens: datetime
    closes: datetime
    ends: datetime


#: A season's dates lie before this year (past it, a date plus a season's spans leaves the calendar:
#: an organiser's trial's `--closes 9999-12-31T23:59Z` was an OverflowError's traceback).
LAST_YEAR = 2999


def _dated(when: datetime | None, what: str) -> datetime | None:
    """`when` (a parsed date or None), Invalid past LAST_YEAR."""
    if when is not None and when.year > LAST_YEAR:
        raise Invalid(f"{what} {when.isoformat()}: a season's dates lie before the year {LAST_YEAR + 1}; "
                      "check the year")
    return when


def check_season(*, slug: Any, game: Any, name: Any, opens: Any = None, closes: Any = None, ends: Any = None,
                 now: datetime | None = None, new: bool = False, state: str | None = None,
                 was: str | None = None, dates_were: tuple[datetime, datetime, datetime] | None = None
                 ) -> SeasonInput:
    """The season's fields checked, with their defaults (opens now, closes 30 days later, ends 7
    days after that); Invalid naming what is wrong. A `new` season closes in the future (beat
    would close and finish one whose close has passed at once, its standings frozen for good), and
    so does an edited one in `state` upcoming or open; a closed one, or one in its finals, ends in
    the future (beat would finish it at once, its finals stopped). `was`: an edited season's name
    now, not judged again when kept (a rule made since does not stop a change of its dates).
    `dates_were`: an edited season's (opens, closes, ends) now; what is past stays as it was: the
    opening once the season has opened, the planned close once it has closed, every date once it
    has finished (an organiser's trial read "open · opens 18:50" and a finished season ending next week)."""
    now = now or timezone.now()
    if not isinstance(slug, str) or not SLUG_RE.fullmatch(slug):
        raise Invalid("a season's slug has 2 to 50 of a-z, 0-9 and '-', starting with a letter or digit")
    try:
        game_spec = spec(game if isinstance(game, str) else "")
    except KeyError:
        raise Invalid(f"unknown game {game!r}") from None
    if not isinstance(name, str) or not name.strip():
        raise Invalid("a season needs a name")
    name = " ".join(name.split())
    if len(name) > NAME_MAX:
        raise Invalid(f"a season's name has at most {NAME_MAX} characters (this one has {len(name)})")
    problem = None if name == was else shown_name_problem(name, what="a season's name")
    if problem is not None:  # (an override turns the name around on every page that shows it)
        raise Invalid(problem)
    opens_at = _dated(parse_time(opens, "opens"), "opens") or now
    closes_at = _dated(parse_time(closes, "closes"), "closes") or opens_at + OPEN_FOR
    ends_at = _dated(parse_time(ends, "ends"), "ends") or closes_at + FINALS_FOR
    if new and closes_at <= now:  # first: a wrong year is the likely cause of any order below
        raise Invalid(f"a new season closes in the future, not at {closes_at.isoformat()} (now is "
                      f"{now.isoformat(timespec='seconds')}): check the year of its dates")
    if state in BEFORE_CLOSE and closes_at <= now:
        raise Invalid(f"season {slug} is {state_said(state)}: it closes in the future, not at {closes_at.isoformat()} "
                      f"(now is {now.isoformat(timespec='seconds')}; a close in the past would close it at once, its "
                      "entries frozen for good): check the year; to close it now, use the action 'Close the "
                      f"selected open seasons now' or `manage.py season close {slug}`")
    if state in (SeasonState.CLOSED, SeasonState.FINALS) and ends_at <= now:
        raise Invalid(f"season {slug} is {state_said(state)}: it ends in the future, not at {ends_at.isoformat()} "
                      f"(now is {now.isoformat(timespec='seconds')}; an end in the past would finish it at once, its "
                      f"finals stopped): check the year; to finish it now, use `manage.py season finish {slug}`")
    if state is not None and dates_were is not None:
        _check_history(slug, state, (opens_at, closes_at, ends_at), dates_were)
    if not opens_at < closes_at <= ends_at:
        raise Invalid(f"a season opens before it closes, and closes no later than it ends (opens "
                      f"{opens_at.isoformat()}, closes {closes_at.isoformat()}, ends {ends_at.isoformat()})")
    twin = Season.objects.filter(name__iexact=name).exclude(slug=slug).first()
    if twin is not None:  # two seasons alike on /seasons/ and in every picker (created or renamed)
        raise Conflict(f"season {twin.slug} is named {twin.name!r} already; give this one another name")
    return SeasonInput(slug, game_spec.slug, name, opens_at, closes_at, ends_at)


def _check_history(slug: str, state: str, dates: tuple[datetime, datetime, datetime],
                   were: tuple[datetime, datetime, datetime]) -> None:
    """Invalid when an edit moves a date the season has passed (to the second: the admin's forms
    show seconds)."""
    names = (("opened", "opening"), ("closed", "close"), ("finished", "end"))  # (finished: maybe before its end)
    passes: dict[str, int] = {SeasonState.UPCOMING: 0, SeasonState.OPEN: 1, SeasonState.CLOSED: 2,
                              SeasonState.FINALS: 2}
    passed = passes.get(state, 3)
    for (done, name), date, was in list(zip(names, dates, were, strict=True))[:passed]:
        if abs((date - was).total_seconds()) >= 1:
            raise Invalid(f"season {slug} is {state_said(state)}: it has {done} already, so its {name} stays "
                          f"{was.isoformat(timespec='seconds')} (not {date.isoformat(timespec='seconds')}); "
                          "the dates still ahead may change")


def check_entry_rule(*, entry_rule: Any = None, invited: Iterable[Any] = ()) -> tuple[EntryRule, list[User]]:
    """The entry rule (default everyone) and the invited accounts (users or usernames) checked;
    Invalid for an unknown rule or account, invitations under another rule, or an invited-only
    season with nobody invited."""
    rule_value = EntryRule.EVERYONE if entry_rule in (None, "") else entry_rule
    if rule_value not in EntryRule.values:
        raise Invalid(f"unknown entry rule {entry_rule!r}: one of {', '.join(EntryRule.values)}")
    rule = EntryRule(rule_value)
    items = list(invited)
    if any(not isinstance(item, str | User) for item in items):
        raise Invalid("invite accounts by their username")
    names = {item.strip() for item in items if isinstance(item, str)}
    found = {u.username: u for u in User.objects.filter(username__in=names)}
    missing = sorted(names - set(found))
    if missing:
        raise Invalid(f"no account named {', '.join(missing)} to invite")
    users = {u.pk: u for u in [*(i for i in items if isinstance(i, User)), *found.values()]}  # each once
    if users and rule != EntryRule.INVITED:
        raise Invalid(f"invited accounts are for an invited-only season (entry rule {EntryRule.INVITED.value}), "
                      f"not {rule.value}: choose that rule or invite nobody")
    if rule == EntryRule.INVITED and not users:
        raise Invalid("an invited-only season needs at least one invited account")
    return rule, sorted(users.values(), key=lambda u: u.pk)


def check_team_rules(*, team_max_members: Any = None, one_team_per_person: Any = False) -> tuple[int | None, bool]:
    """A season's team rules checked: its teams' size (empty: the site's limit; else a whole
    number from 1 to the site's ARMADA_TEAM_MAX_MEMBERS) and one entered team per person."""
    site = settings.ARMADA.team_max_members
    size = None if team_max_members in (None, "") else team_max_members  # (0 is refused: it is no size)
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= site):
        raise Invalid(f"a season's team size is a whole number from 1 to {site} (the site's limit, "
                      "ARMADA_TEAM_MAX_MEMBERS), or empty for the site's limit")
    if not isinstance(one_team_per_person, bool):
        raise Invalid("one team per person is true or false")
    return size, one_team_per_person


def create_season(*, slug: Any, game: Any, name: Any, opens: Any = None, closes: Any = None, ends: Any = None,
                  entry_rule: Any = None, invited: Iterable[Any] = (), team_max_members: Any = None,
                  one_team_per_person: Any = False, now: datetime | None = None) -> Season:
    """A new season: `upcoming` until `opens` (default now, then it is `open` at once), closing at
    `closes` (default opens + 30 days) and ending at `ends` (default closes + 7 days); whose bots
    enter at its close is `entry_rule` (default everyone) with its `invited` accounts; its team
    rules (check_team_rules; default none beyond the site's team size)."""
    now = now or timezone.now()
    fields = check_season(slug=slug, game=game, name=name, opens=opens, closes=closes, ends=ends, now=now, new=True)
    rule, users = check_entry_rule(entry_rule=entry_rule, invited=invited)
    size, one_team = check_team_rules(team_max_members=team_max_members, one_team_per_person=one_team_per_person)
    with transaction.atomic():
        if Season.objects.filter(slug=fields.slug).exists():
            raise Conflict(f"there is a season {fields.slug} already")
        state = SeasonState.OPEN if fields.opens <= now else SeasonState.UPCOMING
        season = Season.objects.create(slug=fields.slug, game=fields.game, name=fields.name, opens=fields.opens,
                                       closes=fields.closes, ends=fields.ends, state=state, entry_rule=rule,
                                       team_max_members=size, one_team_per_person=one_team)
        season.invited_users.set(users)
    return season


def set_entry_rule(*, season: Season, entry_rule: Any, invited: Iterable[Any] = ()) -> Season:
    """Choose who may enter an upcoming or open season (check_entry_rule); Conflict once it has
    closed: its entries are frozen under the rule it had."""
    rule, users = check_entry_rule(entry_rule=entry_rule, invited=invited)
    with transaction.atomic():
        locked = _locked(season)
        if locked.state not in BEFORE_CLOSE:
            raise Conflict(f"season {locked.slug} is {state_said(locked.state)}: its entries are frozen, so its "
                           "entry rule changes only before the close")
        locked.entry_rule = rule
        locked.save(update_fields=["entry_rule"])
        locked.invited_users.set(users)
    return locked


def set_team_rules(*, season: Season, team_max_members: Any = None, one_team_per_person: Any = False) -> Season:
    """Set an upcoming or open season's team rules (check_team_rules); Conflict once it has closed.
    Teams entered already that break them are left out at the close (entries.freeze, D-S-14)."""
    size, one_team = check_team_rules(team_max_members=team_max_members, one_team_per_person=one_team_per_person)
    with transaction.atomic():
        locked = _locked(season)
        if locked.state not in BEFORE_CLOSE:
            raise Conflict(f"season {locked.slug} is {state_said(locked.state)}: its entries are frozen, so its "
                           "team rules change only before the close")
        locked.team_max_members, locked.one_team_per_person = size, one_team
        locked.save(update_fields=["team_max_members", "one_team_per_person"])
    return locked


def may_delete(*, season: Season) -> bool:
    """Only a season that has not closed may be deleted: a closed one's entries, finals and final
    standings (and the integrity checks' audit of it) stay for good (docs/seasons.md)."""
    return season.state in BEFORE_CLOSE


def _locked(season: Season) -> Season:
    return Season.objects.select_for_update().get(pk=season.pk)


def _refuse(season: Season, action: str, needed: str) -> Conflict:
    return Conflict(f"season {season.slug} is {state_said(season.state)}: only {needed} season can be {action}")


def open_season(*, season: Season) -> Season:
    """upcoming -> open (before its time, when staff say so: its opening becomes now, as it is past
    from then on and no longer editable)."""
    with transaction.atomic():
        locked = _locked(season)
        if locked.state != SeasonState.UPCOMING:
            raise _refuse(locked, "opened", "an upcoming")
        locked.state = SeasonState.OPEN
        locked.opens = min(locked.opens, timezone.now())
        locked.save(update_fields=["state", "opens"])
    return locked


def close_season(*, season: Season, now: datetime | None = None) -> Season:
    """open -> closed: each bot's playing version now is frozen as its entry (entries.freeze); the
    bots its team rules left out are kept (`left_out`: its page names them) and logged, however it
    closed (on time, the admin, the command)."""
    with transaction.atomic():
        locked = _locked(season)
        if locked.state != SeasonState.OPEN:
            raise _refuse(locked, "closed", "an open")
        seeded = entries.freeze(season=locked)
        locked.state = SeasonState.CLOSED
        locked.closed_at = now or timezone.now()
        locked.left_out = seeded.named_left_out()
        locked.save(update_fields=["state", "closed_at", "left_out"])
        if locked.left_out:
            log.info("season %s closed: its team rules left out %d: %s", locked.slug, len(locked.left_out),
                     ", ".join(locked.left_out))
        season_closed.send(sender=Season, season=locked)
    return locked


def finals_plan(*, stages: Any = None, games: Any = None) -> finals_logic.Plan:
    """The settings' finals plan, with `stages` and `games` (per entry per stage) when given."""
    config = settings.ARMADA
    values = {}
    for what, value, default in (("stages", stages, config.finals_stages), ("games", games, config.finals_games)):
        if value is None:
            values[what] = default
        elif isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
            raise Invalid(f"--{what} must be a whole number from 1 to 1000")
        else:
            values[what] = value
    plan = finals_logic.Plan(stages=values["stages"], games=values["games"], cuts=tuple(config.finals_cuts),
                       keep_min=config.finals_keep_min)
    problem = finals_logic.check_plan(plan)
    if problem:
        raise Invalid(problem)
    return plan


@dataclass(frozen=True)
class FinalsPreview:
    """What starting a closed season's finals with `plan` does: play `matches` finals matches among
    its `entries` (`forecast`: when they would be done on every match worker; None when nothing is
    played), or finish the season at once: a league game (`league`: its league is its result) or
    fewer than two entries (no finals game)."""

    slug: str
    plan: finals_logic.Plan
    entries: int
    matches: int
    league: bool
    forecast: finals.Forecast | None

    @property
    def at_once(self) -> bool:
        return self.league or self.matches == 0


def _outlook(season: Season, plan: finals_logic.Plan, now: datetime, *, before_close: bool = False) -> FinalsPreview:
    """`season`'s finals with `plan` as they would start now; Conflict unless it is closed (or, with
    `before_close`, open: its entries if it closed now, its finals from its close on)."""
    if before_close and season.state == SeasonState.OPEN:
        count, start = len(entries.would_enter(season)[0]), max(now, season.closes)
    elif season.state != SeasonState.CLOSED:
        raise (_refuse(season, "previewed (--dry-run)", "an open or a closed") if before_close
               else _refuse(season, "given its finals", "a closed"))
    else:
        count, start = season.entries.count(), now
    if not spec(season.game).rated:
        return FinalsPreview(season.slug, plan, count, 0, True, None)
    matches = finals_logic.total_matches(count, plan)
    return FinalsPreview(season.slug, plan, count, matches, False,
                         finals.forecast(season, matches, known_workers(), start))


def preview_finals(*, season: Season, stages: Any = None, games: Any = None,
                   now: datetime | None = None) -> FinalsPreview:
    """What `start_finals` with these arguments would do now, changing nothing (`season finals
    --dry-run`): refused as it would be (Invalid plan, Conflict unless closed or open), but for a plan
    run past the season's end, which its `forecast` says (`past_end`). An open season is previewed
    with the entries it would have if it closed now, its finals starting at its close, so an
    organiser can choose a plan before beat starts the settings' one at the close."""
    plan = finals_plan(stages=stages, games=games)
    return _outlook(season, plan, now or timezone.now(), before_close=True)


def past_end_said(*, outlook: FinalsPreview, ends: datetime) -> str:
    """Why finals whose forecast runs past the season's end (`ends`) are not started."""
    ahead = outlook.forecast
    assert ahead is not None
    seasons = "season's" if ahead.others == 1 else "seasons'"
    behind = f", shared with {ahead.others} other {seasons} finals" if ahead.others else ""
    return (f"season {outlook.slug}'s finals ({outlook.matches} matches at about {ahead.match_seconds:.0f} s on all "
            f"{ahead.workers} worker{'s' if ahead.workers != 1 else ''}{behind}) would be done about "
            f"{ahead.done:%Y-%m-%d %H:%M} UTC, after the season's end ({ends:%Y-%m-%d %H:%M} UTC), when the "
            f"standings as they are become final; nothing started: pass fewer --stages or --games (`season finals "
            f"{outlook.slug} --stages K --games N`, `--dry-run` to see a plan's outlook), or `--past-end` to "
            "start them anyway")


def start_finals(*, season: Season, stages: Any = None, games: Any = None, now: datetime | None = None,
                 past_end: bool = False) -> Season:
    """closed -> finals: the entries start their finals ratings and the first round is planned.

    A league game (Mothership Down) has nothing to play: the league of the frozen entries is its
    result, computed now, and the season is finished at once (so is a season of fewer than two entries).

    Finals that would be done after the season's end, on every match worker at the matches'
    length (`preview_finals`), are refused (Conflict, `past_end_said`) unless `past_end`: started, they
    cannot be undone and take every worker until the end, where the standings as they are become
    final. Beat, at the close, starts the settings' plan with `past_end` (its times are the organiser's).
    """
    now = now or timezone.now()
    plan = finals_plan(stages=stages, games=games)
    with transaction.atomic():
        locked = _locked(season)
        outlook = _outlook(locked, plan, now)
        if outlook.league:
            entries.league_result(locked)
            return _finish(locked, now)
        if not past_end and outlook.forecast is not None and outlook.forecast.past_end:
            raise Conflict(past_end_said(outlook=outlook, ends=locked.ends))
        finals.begin(season=locked, plan=plan, start=finals_logic.Start(settings.ARMADA.finals_start), now=now)
        if locked.matches_total == 0:  # fewer than two entries: nothing to play
            return _finish(locked, now)
        transaction.on_commit(lambda: play_on(season_id=locked.pk), robust=True)
    return locked


def finish_season(*, season: Season, now: datetime | None = None) -> Season:
    """closed or finals -> finished, with the standings as they are now; stored for good."""
    with transaction.atomic():
        locked = _locked(season)
        if locked.state not in (SeasonState.CLOSED, SeasonState.FINALS):
            raise _refuse(locked, "finished", "a closed or finals")
        return _finish(locked, now or timezone.now())


def _finish(season: Season, now: datetime) -> Season:
    """Write the final standings and finish (inside the caller's transaction, the row locked)."""
    # `finals.count_game`'s order, the game's row and then the entries': the games not played are
    # skipped first (`stop`: it waits for a finals game being recorded now, which then counts and
    # is in the standings), then the entries are locked before they are read (a recording that
    # waited for them sees its game skipped). The other order deadlocked on PostgreSQL.
    finals.stop(season=season)
    list(Entry.objects.select_for_update(of=("self",)).filter(season=season).order_by("pk").values_list("pk"))
    entries.write_standings(season=season)
    season.finals_cut = finals.cut_short(season) if season.stages is not None else 0
    season.state = SeasonState.FINISHED
    season.finished_at = now
    season.save(update_fields=["state", "finished_at", "finals_cut"])
    season_finished.send(sender=Season, season=season)
    return season


def play_on(*, season_id: int, now: datetime | None = None) -> bool:
    """Move a season's finals on (plan the next round or stage, send what the finals' workers
    may take) and finish the season once its last game is played; True when it finished.
    Called after each finals match is recorded and by beat; safe to call any time, twice."""
    if not finals.advance(season_id=season_id):
        return False
    with transaction.atomic():
        locked = Season.objects.select_for_update().filter(pk=season_id, state=SeasonState.FINALS).first()
        if locked is None or not finals.all_done(locked):
            return False
        _finish(locked, now or timezone.now())
    return True


def withdraw_entries(*, season: Season, version_ref: int | None = None, owner_id: int | None = None,
                     team_ref: int | None = None) -> int:
    """Entries leave a closed, finals or finished season (staff disqualified them, issue 28): the
    entry of version `version_ref`, every entry of the account `owner_id` or of the team `team_ref`
    (as it entered at the close), is deleted with its
    finals games (their queued matches cancelled, `finals.withdraw`); a finished season's final
    standings are written again from the entries left (`entries.rewrite_standings`), a running
    finals plays on without them, its `matches_total` counted again (`finals.recount`). Returns
    the entries withdrawn (0: none, nothing changed).
    Invalid unless exactly one of the three is given; Conflict before the close (no entries yet)."""
    given = {name: value for name, value in (("version_ref", version_ref), ("owner_id", owner_id),
                                             ("team_ref", team_ref)) if value is not None}
    if len(given) != 1:
        raise Invalid("withdraw a version's entry, an account's entries or a team's entries")
    with transaction.atomic():
        locked = _locked(season)
        if locked.state in BEFORE_CLOSE:
            raise Conflict(f"season {locked.slug} is {state_said(locked.state)}: it has no entries before its close")
        ids = list(Entry.objects.filter(season=locked, **given).values_list("pk", flat=True))
        if not ids:
            return 0
        finals.withdraw(season=locked, entry_ids=ids)
        Entry.objects.filter(pk__in=ids).delete()
        locked.withdrawn += len(ids)  # (the finals' page says why its count of matches went down)
        locked.save(update_fields=["withdrawn"])
        if locked.state == SeasonState.FINISHED:
            entries.rewrite_standings(season=locked)
        elif locked.state == SeasonState.FINALS:
            finals.recount(season=locked)
            transaction.on_commit(lambda: play_on(season_id=locked.pk), robust=True)
    return len(ids)


def forget_member(*, user: Any) -> int:
    """`user` is deleting their account: the entries and standings of the teams they were in keep
    their results but no longer name them (a new account may take the name; the results must not
    seem its own): their username in `members`, and their personal team's name (whatever it is:
    `alice-2` when a team had the name first), become "(deleted user)" (events and integrity do the
    same for their rows). Returns the rows changed."""
    name = user.get_username()
    teams = list(Membership.objects.filter(user_id=user.pk).values_list("team_id", flat=True))
    personal = set(Membership.objects.filter(user_id=user.pk, team__personal=True).values_list("team_id", flat=True))
    changed = 0
    with transaction.atomic():
        for model in (Entry, Standing):
            for row in model.objects.filter(team_ref__in=teams).only("pk", "team_ref", "team_name", "members"):
                members = [DELETED_USER if m == name else m for m in row.members or []]
                team_name = DELETED_USER if row.team_ref in personal else row.team_name
                if members != (row.members or []) or team_name != row.team_name:
                    model.objects.filter(pk=row.pk).update(members=members, team_name=team_name)
                    changed += 1
    return changed
