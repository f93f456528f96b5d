"""E-mails on what the apps below signal (connected in NotificationsConfig.ready()); each is sent
after its transaction commits, to every member of the bot's team (notifications.services), each
at most once, at their confirmed address, unless they turned the topic off (accounts.mail):

- a version's validation ended invalid or in error (bots.signals.validation_failed);
- a version was benched (ladder.signals.version_benched);
- a season finished: each entrant's team gets its place (seasons.signals.season_finished);
- staff disqualified entries from a season: the team of each entry withdrawn (a team with no
  member left: the entry's owner) gets the reason, whatever its preferences
  (integrity.signals.disqualified), and once a season is finished each entrant whose place
  changed gets its new place, left to beat (seasons.signals.standings_rewritten).
"""

from __future__ import annotations

from typing import Any

from armada_web.accounts.mail import left_to_beat
from armada_web.bots.models import Bot, BotVersion
from armada_web.bots.signals import validation_failed
from armada_web.integrity.models import Disqualification, Target
from armada_web.integrity.signals import disqualified
from armada_web.jobs.notes import shown_note
from armada_web.ladder.models import Rating
from armada_web.ladder.signals import version_benched
from armada_web.notifications.services import notify_team, notify_team_of, team_words
from armada_web.seasons.models import Season, SeasonState
from armada_web.seasons.signals import season_finished, standings_rewritten
from armada_web.web.links import site_address


def _site(path: str) -> str:
    """`path` as a link in an e-mail (`web.links.site_address`)."""
    return site_address() + path


def _footer() -> str:
    return f"\n\nTurn these e-mails off on your profile page: {_site('/accounts/profile/')}\n"


def mail_failed_version(sender: Any, version: BotVersion, **_: Any) -> None:
    version = BotVersion.objects.select_related("bot__team").get(pk=version.pk)
    bot = version.bot
    page = _site(f"/bots/{bot.pk}/versions/{version.number}/")
    notify_team_of(bot=bot, topic="version_failed",
                   key=f"version-{version.pk}-{version.status}-{version.finished:%Y%m%d%H%M%S%f}"
                   if version.finished else f"version-{version.pk}-{version.status}",
                   subject=f"{bot.name} v{version.number} is {version.status}",
                   body=f"Version {version.number} of your bot {bot.name}{team_words(bot=bot)} is {version.status}: "
                        f"{shown_note(version.detail, user=None)}\n\nIts page, with the bot's log: {page}{_footer()}")


def mail_benched(sender: Any, rating: Rating, **_: Any) -> None:
    version = BotVersion.objects.select_related("bot__team").get(pk=rating.version_id)
    bot = version.bot
    notify_team_of(bot=bot, topic="benched", key=f"benched-{version.pk}",
                   subject=f"{bot.name} v{version.number} is benched",
                   body=f"{rating.benched_reason}\n\nIts page: {_site(f'/bots/{bot.pk}/')}{_footer()}")


def mail_season_results(sender: Any, season: Season, **_: Any) -> None:
    entrants = season.standings.count()
    for standing in season.standings.all():
        bot = Bot.objects.select_related("team").filter(pk=standing.bot_ref).first()
        notify_team_of(bot=bot, fallback_user_id=standing.owner_id, topic="season_results",
                       key=f"season-{season.pk}-{standing.bot_ref}",
                       subject=f"{season.name}: {standing.bot_name} finished {standing.place} of {entrants}",
                       body=f"The season {season.name} is finished. Your bot {standing.bot_name}{team_words(bot=bot)} "
                            f"(version {standing.version_number}) placed {standing.place} of {entrants}, "
                            f"score {standing.score:g} "
                            + (f"after {standing.games} games" if standing.games else
                               "(its score at the close: no finals game was played)")
                            + f".\n\nThe final standings: "
                            f"{_site(f'/seasons/{season.slug}/')}{_footer()}")


def mail_disqualified(sender: Any, decision: Disqualification, entrants: list[tuple[int | None, int | None]],
                      **_: Any) -> None:
    """Every member now of each withdrawn entry's team (a team with none left: the entry's owner),
    each once, whatever their preferences (`accounts.mail.DECISIONS`)."""
    season = decision.season
    what = {Target.VERSION: f"the entry of your bot {decision.version_label}",
            Target.ACCOUNT: f"the entries of the account {decision.username}",
            Target.TEAM: f"the entries of your team {decision.team_name}"}
    entries = f"{decision.entries} entr{'y' if decision.entries == 1 else 'ies'}"
    them = "it" if decision.entries == 1 else "them"  # (an organiser's trial: "(1 entry left it) ... without them")
    after = (f" Its final standings are written again without {them}." if season.state == SeasonState.FINISHED
             else f" Its finals play on without {them}." if season.state == SeasonState.FINALS else "")
    subject = (f"{season.name}: team {decision.team_name} disqualified" if decision.target == Target.TEAM else
               f"{season.name}: {decision.version_label or 'the entries of ' + decision.username} disqualified")
    body = (f"The organisers disqualified {what[Target(decision.target)]} from the season {season.name} "
            f"({entries} left it).{after}\n\nTheir reason: {decision.reason}\n\n"
            + (f"The season's page shows the decision to the account {decision.username} "  # (its teammates get
               f"and the organisers: "  # this mail for their team's entries; the page shows it to the account)
               if decision.target == Target.ACCOUNT else "The season's page shows the decision to you: ")
            + f"{_site(f'/seasons/{season.slug}/')}\n")
    for team_ref, owner_id in dict.fromkeys(entrants):
        notify_team(team_id=team_ref, fallback_user_id=owner_id, topic="disqualified",
                    key=f"disqualified-{decision.pk}", subject=subject, body=body)


def mail_changed_places(sender: Any, season: Season, places_before: dict[int, int], **_: Any) -> None:
    """Left to beat (`left_to_beat`): one mail per member below the entry that left is not sent in
    staff's request, and beat sends oldest first, so a results mail still pending goes before its
    correction."""
    with left_to_beat():
        _mail_changed_places(season=season, places_before=places_before)


def _mail_changed_places(*, season: Season, places_before: dict[int, int]) -> None:
    entrants = season.standings.count()
    for standing in season.standings.all():
        before = places_before.get(standing.bot_ref)
        if before is None or before == standing.place:
            continue
        bot = Bot.objects.select_related("team").filter(pk=standing.bot_ref).first()
        notify_team_of(bot=bot, fallback_user_id=standing.owner_id, topic="season_results",
                       key=f"season-{season.pk}-{standing.bot_ref}-place-{standing.place}",
                       subject=f"{season.name}: {standing.bot_name} now placed {standing.place} of {entrants}",
                       body=f"The final standings of the season {season.name} changed: the organisers disqualified "
                            f"an entry. Your bot {standing.bot_name}{team_words(bot=bot)} (version "
                            f"{standing.version_number}) now places {standing.place} of {entrants}; it placed "
                            f"{before} before.\n\nThe final standings: {_site(f'/seasons/{season.slug}/')}{_footer()}")


def connect() -> None:
    validation_failed.connect(mail_failed_version, sender=BotVersion, dispatch_uid="notifications.failed_version")
    version_benched.connect(mail_benched, sender=Rating, dispatch_uid="notifications.benched")
    season_finished.connect(mail_season_results, sender=Season, dispatch_uid="notifications.season_results")
    disqualified.connect(mail_disqualified, sender=Disqualification, dispatch_uid="notifications.disqualified")
    standings_rewritten.connect(mail_changed_places, sender=Season, dispatch_uid="notifications.changed_places")
