"""The integrity tasks: thin, see integrity.checks and integrity.behaviour.

- `integrity_checks` (the periodic queue): every check of a season, sent when it closes and again
  when it finishes (its finals were played since); the versions in play without a behaviour
  signature are sent to be probed first (their twins are found by the next run).
- `send_checks_now`: the same run sent by staff's button on the report (`integrity.actions.run_checks_now`),
  for a season or all of ranked play; a second press before it starts sends nothing more.
- `integrity_catch_up` (beat): sends the checks again for a season closed (or finished) a while
  ago with no run of them on record since (`checks.unchecked_seasons`: the message was lost or its
  worker died midway); such a copy does nothing once a run has finished, so a copy delivered
  twice, or after the first got through, runs nothing twice.
- `probe_version` (the validation queue: it runs the bot in the sandbox): a version's behaviour
  signature, sent when its validation ends valid; a no-op for a version probed already.
"""

from __future__ import annotations

from celery import shared_task
from django.core.cache import cache

from armada_web.bots.models import BotVersion
from armada_web.integrity.behaviour import missing
from armada_web.integrity.behaviour import probe_version as probe
from armada_web.integrity.checks import checked_since_step, run_checks, unchecked_seasons
from armada_web.jobs import broker, queues
from armada_web.seasons.models import Season
from armada_web.web.errors import Unavailable
from armada_web.web.locks import one_at_a_time

#: Versions sent to be probed per run of the checks (the rest on the next run).
CATCH_UP = 1000


#: Seconds a run of a season's checks holds its lock (`RUN_LOCK`): longer than any run takes; a
#: worker killed midway frees it after this, and beat's catch-up sends the checks again.
RUN_LOCK_S = 3 * 3600


#: The cache key any run holds: one run at a time, so that the periodic worker's other process is
#: always free for the reapers, matchmaking and the ticks; a run that finds another going on is sent
#: again RESEND_S later.
ANY_RUN = "integrity:run:any"
RESEND_S = 300


def run_lock(season_id: int | None) -> str:
    """The cache key a run of the season's checks (None: all of ranked play's) holds while it runs."""
    return f"integrity:run:{'all' if season_id is None else season_id}"


#: Seconds a run sent by staff holds its `sent_key` until it starts: a second press meanwhile sends
#: nothing more; a message the broker lost frees it after this.
SENT_S = 600


def sent_key(season_id: int | None) -> str:
    """The cache key of a run of the season's checks sent by staff and not started yet."""
    return f"integrity:sent:{'all' if season_id is None else season_id}"


def running(season_id: int | None) -> bool:
    """Whether a run of the season's checks (None: all of ranked play's) is going on now."""
    return cache.get(run_lock(season_id)) is not None


def run_state(season_id: int | None) -> str:
    """"running" (a run of the season's checks goes on now), "sent" (staff sent one, not started
    yet; the name of who sent it follows a colon) or ""."""
    if running(season_id):
        return "running"
    sender = cache.get(sent_key(season_id))
    return f"sent:{sender}" if sender is not None else ""


#: Seconds a probe sent stands for its version: runs meanwhile send it no other copy (the last
#: one may still wait in the validation queue, where each copy would probe it again behind uploads).
PROBE_SENT_S = 3600


def probe_sent_key(version_id: int) -> str:
    """The cache key a version's probe holds once sent (for PROBE_SENT_S)."""
    return f"integrity:probe-sent:{version_id}"


# Its own time limits, not the matches' (the settings' default): a run takes minutes at a season's
# scale, and one killed every time by a short match limit would never make its report.
@shared_task(name=queues.Task.INTEGRITY_CHECKS, ignore_result=True, time_limit=RUN_LOCK_S - 60,
             soft_time_limit=RUN_LOCK_S - 120)
def integrity_checks(season_id: int | None, unchecked_only: bool = False, ran_by: str = "") -> int:
    """Run every check for a season (sent when it closes, when it finishes, and by staff's button,
    who are `ran_by`; None: all of ranked play); returns the findings (0: no such season, another run
    of them going on now, or `unchecked_only` (beat's catch-up) and they ran since its close, or its
    finish once finished)."""
    if ran_by:  # staff's run left the queue (to run, or to do nothing beside another): staff may send again
        cache.delete(sent_key(season_id))
    season = None if season_id is None else Season.objects.filter(pk=season_id).first()
    if season_id is not None and (season is None or (unchecked_only and checked_since_step(season=season))):
        return 0
    with one_at_a_time(run_lock(season_id), RUN_LOCK_S) as mine:
        if not mine:  # a copy sent while a long run goes on
            return 0
        with one_at_a_time(ANY_RUN, RUN_LOCK_S) as alone:
            if not alone:  # another season's run (or staff's) goes on: later
                if ran_by:  # staff's run is still on its way: a second press sends nothing more
                    cache.set(sent_key(season_id), ran_by, SENT_S + RESEND_S)
                try:
                    integrity_checks.apply_async(args=[season_id], kwargs={"unchecked_only": unchecked_only,
                                                                           "ran_by": ran_by},
                                                 queue=queues.name(queues.Role.PERIODIC), countdown=RESEND_S)
                except BaseException:  # not sent again: the button is free
                    if ran_by:
                        cache.delete(sent_key(season_id))
                    raise
                return 0
            sent = 0
            for version_id in missing():
                if sent >= CATCH_UP:
                    break
                sent += queue_probe(version_id)
            return len(run_checks(season=season, ran_by=ran_by))


def queue_checks(season_id: int) -> None:
    """Send the checks of a season to the periodic queue."""
    integrity_checks.apply_async(args=[season_id], queue=queues.name(queues.Role.PERIODIC))


def send_checks_now(season_id: int | None, *, ran_by: str) -> bool:
    """Send a run of the season's checks (None: all of ranked play's) for staff `ran_by`, unless one
    they sent has not started yet (False); Unavailable when the broker cannot be reached."""
    if not cache.add(sent_key(season_id), ran_by, SENT_S):
        return False
    try:
        integrity_checks.apply_async(args=[season_id], kwargs={"ran_by": ran_by},
                                     queue=queues.name(queues.Role.PERIODIC))
    except broker.DOWN:  # nothing was sent: the button stays free, staff are told to try again
        cache.delete(sent_key(season_id))
        raise Unavailable("the task queue cannot be reached now, so the checks were not sent; "
                          "try again in a minute") from None
    return True


#: Seconds between two catch-ups (beat): a copy not run by the next one is dropped.
CATCH_UP_EVERY_S = 600


@shared_task(name=queues.Task.INTEGRITY_CATCH_UP, ignore_result=True)
def integrity_catch_up() -> int:
    """Beat: send the checks of every season closed (or finished) a while ago without a run of them since
    (`checks.unchecked_seasons`); returns how many were sent."""
    season_ids = unchecked_seasons()
    for season_id in season_ids:
        integrity_checks.apply_async(args=[season_id], kwargs={"unchecked_only": True},
                                     queue=queues.name(queues.Role.PERIODIC), expires=float(CATCH_UP_EVERY_S))
    return len(season_ids)


@shared_task(name=queues.Task.PROBE_VERSION, acks_late=True, ignore_result=True, time_limit=900, soft_time_limit=840)
def probe_version(version_id: int) -> str:
    """Probe one version (`behaviour.probe_version`): "probed", or "skipped" (gone, not valid, or
    it could not run now: a later run of the checks sends it again, PROBE_SENT_S after this one was sent)."""
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    if version is None:
        return "skipped"
    return "probed" if probe(version=version) is not None else "skipped"


def queue_probe(version_id: int) -> bool:
    """Send a version's behaviour probe to the validation queue (its workers have the sandbox),
    unless one was sent within PROBE_SENT_S (False)."""
    if not cache.add(probe_sent_key(version_id), 1, PROBE_SENT_S):
        return False
    try:
        probe_version.apply_async(args=[version_id],
                                  queue=queues.name(queues.TASK_ROLES[queues.Task.PROBE_VERSION]))
    except BaseException:  # not sent: the next run may send it
        cache.delete(probe_sent_key(version_id))
        raise
    return True
