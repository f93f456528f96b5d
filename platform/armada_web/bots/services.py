"""Bot and version writes: create, upload, choose the active version, retire, delete, disable.

Every function is keyword-only, takes the acting user (or is staff's), checks every rule itself
and raises an `armada_web.web.errors` error with a message for the user; views, API views, tasks,
commands and the admin all call these.
"""

from __future__ import annotations

import logging
import re
from typing import IO, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from armada_web.accounts import limits
from armada_web.bots import storage
from armada_web.bots.access import activation_refusal, check_owner, delete_refusal, upload_refusal
from armada_web.bots.activation import newest_valid
from armada_web.bots.logic.names import name_problem
from armada_web.bots.models import Bot, BotVersion, Game, VersionStatus
from armada_web.bots.signals import active_version_changed
from armada_web.bots.tasks import queue_validation
from armada_web.jobs import broker
from armada_web.storage.archives import Bundle, check_upload
from armada_web.teams.access import check_member
from armada_web.teams.models import Membership, Team
from armada_web.teams.services import get_team, personal_team
from armada_web.web.errors import Conflict, Forbidden, Invalid, NotFound, Unavailable
from armada_web.web.inputs import parse_id, shown_text_problem

DESCRIPTION_MAX = 2000
log = logging.getLogger(__name__)


def create_bot(*, user: User, name: Any, game: Any, description: Any = "", team: Any = None) -> Bot:
    """A new bot of `team` (a team `user` is in; default: their personal team) for `game`; refuses
    bad or taken names and too many bots (counted per team)."""
    if game not in Game.values:
        raise Invalid(f"unknown game {game!r}; choose one of: {', '.join(Game.values)}")
    problem = name_problem(name)
    if problem:
        raise Invalid(problem)
    if description is None:
        description = ""
    if not isinstance(description, str):
        raise Invalid("the description must be text")
    if len(description) > DESCRIPTION_MAX:
        raise Invalid(f"description too long: {len(description)} characters (at most {DESCRIPTION_MAX})")
    # Free text on the bot's and its owner's pages: lines and tabs, but no escapes nor direction overrides
    # (a team's, an event's name refuse them already; a review found them kept here).
    problem = shown_text_problem(re.sub(r"[\n\r\t]", " ", description), what="a bot's description")
    if problem:
        raise Invalid(problem)
    try:
        chosen = personal_team(user=user) if team is None else get_team(team_id=team)
    except NotFound as exc:  # a field of the body, not the path: bad input
        raise Invalid(f"team: {exc}") from None
    check_member(user=user, team_id=chosen.pk, refusal="you can create bots only for a team you are a member of")
    if chosen.archived is not None:
        raise Conflict(f"the team {chosen.name} is archived; restore it first")
    taken = Conflict(f"the name {name!r} is taken for {Game(game).label}; choose another")
    try:
        with transaction.atomic():
            # one creation at a time per team, so the count holds (NO KEY: as teams.services locks it);
            # membership and archiving again under it: a removal or an archive may have just committed
            locked_team = Team.objects.select_for_update(no_key=True).get(pk=chosen.pk)
            check_member(user=user, team_id=chosen.pk,
                         refusal="you can create bots only for a team you are a member of")
            if locked_team.archived is not None:
                raise Conflict(f"the team {chosen.name} is archived; restore it first")
            owned = Bot.objects.filter(team=chosen, game=game, retired__isnull=True).count()
            limit = settings.ARMADA.max_bots_per_game
            if owned >= limit:
                raise Conflict(f"the team {chosen.name} already has {owned} {Game(game).label} bots (the limit is "
                               f"{limit} per team); retire or delete one first")
            if Bot.objects.filter(game=game, name__iexact=name).exists():
                raise taken
            return Bot.objects.create(owner=user, team=chosen, game=game, name=name,
                                      description=description.strip())
    except IntegrityError:  # another team created the name at the same moment (the unique constraint)
        raise taken from None


#: The action the hourly upload limit counts (accounts.limits), per team.
UPLOAD = "upload"


def upload_version(*, bot: Bot, user: User, filename: str, data: bytes | IO[bytes]) -> BotVersion:
    """Check an upload (bytes, or a seekable file read in chunks: a request's temporary file) and
    store it as the bot's next version (pending); validation starts on commit.

    The hourly limit is counted in the same transaction as the version's row (accounts.limits):
    parallel uploads cannot pass it, and deleting the bot afterwards frees nothing. An upload past
    its game's size limit is refused before anything is read or stored."""
    check_owner(bot=bot, user=user)
    refusal = upload_refusal(bot=bot)
    if refusal:  # the bot's state, not the upload, is in the way (409, as for a new bot in an archived team)
        raise Conflict(refusal)
    with check_upload(name=filename, data=data, game=bot.game) as bundle:
        return _store_version(bot=bot, user=user, bundle=bundle)


def under_team_lock(*, bot: Bot, lock_bot: bool = False, nothing: str = "") -> Bot:
    """`bot` read again under its team's row lock (teams.services' own; with `lock_bot`, then its
    own row's), so who may act for it is asked of the team as it stands: NotFound when it was
    deleted meanwhile, Conflict when it moved to another team (`nothing`: what the refusal adds).
    Call it in a transaction, before locking any other row: an account's deletion locks its teams
    first, then the rows that name the account."""
    said = f"; {nothing}" if nothing else ""
    team_id = Bot.objects.filter(pk=bot.pk).values_list("team_id", flat=True).first()
    if team_id is None:
        raise NotFound(f"the bot was deleted meanwhile{said}")
    Team.objects.select_for_update(no_key=True).filter(pk=team_id).first()
    rows = Bot.objects.select_for_update(of=("self",)) if lock_bot else Bot.objects
    fresh = rows.select_related("team").filter(pk=bot.pk).first()
    if fresh is None:
        raise NotFound(f"the bot was deleted meanwhile{said}")
    if fresh.team_id != team_id:
        raise Conflict(f"{fresh.name} moved to another team meanwhile{said}: try again")
    return fresh


def _store_version(*, bot: Bot, user: User, bundle: Bundle) -> BotVersion:
    """The row and the stored archive of an accepted upload, in one transaction."""
    try:
        with transaction.atomic():
            limit = settings.ARMADA.uploads_per_hour
            limits.take(action=UPLOAD, key=limits.team_key(bot.team_id), limit=limit, window_s=3600,
                        refusal=f"upload limit reached: {limit} uploads per hour per team")
            # and per account, whatever the team: one account in several teams stores no more
            limits.take(action=UPLOAD, key=limits.user_key(user.pk), limit=limit, window_s=3600,
                        refusal=f"upload limit reached: {limit} uploads per hour per account, over all your teams")
            # the team's row first (teams.services' lock, as moves.move_bot takes it), then the bot's:
            # who may upload and whether the team is archived are asked again under them
            locked = under_team_lock(bot=bot, lock_bot=True, nothing="nothing was uploaded")
            check_owner(bot=locked, user=user)
            refusal = upload_refusal(bot=locked)
            if refusal:
                raise Conflict(refusal)
            newest = locked.versions.order_by("-number").first()
            # (the same code again is refused, unless the platform failed its validation: the page of a
            # version in error says that uploading it again works)
            if newest is not None and newest.sha256 == bundle.sha256 and newest.status != VersionStatus.ERROR:
                raise Invalid(f"this is the same code as version {newest.number} (the newest); nothing was uploaded")
            number = (locked.versions.aggregate(n=Max("number"))["n"] or 0) + 1
            version = BotVersion(bot=locked, number=number, sha256=bundle.sha256, size=bundle.uploaded_bytes,
                                 files=bundle.files, uploaded_by=user, status=VersionStatus.PENDING,
                                 queued=timezone.now())
            try:
                version.archive.name = storage.save_archive(version, bundle.file)
            except OSError as exc:
                log.error("upload of bot %s refused: the storage failed (%s)", locked.pk, exc)
                raise Unavailable(f"storage unavailable, nothing was saved ({exc.__class__.__name__}); "
                                  "try again") from None
            version.save()
            transaction.on_commit(lambda: queue_validation(version.pk))  # after the commit; raises if it fails
    except broker.DOWN:
        # The version is kept (pending): the reaper sends its validation once the queue is back.
        raise Unavailable(f"version {number} was saved, but its validation could not be queued: the queue is "
                          "down. It will be validated by itself once the queue is back; do not upload it again."
                          ) from None
    return version


def revalidate(*, version: BotVersion) -> bool:
    """Staff: validate a version again from scratch; False when it is being validated right now.
    A pending version does not play, so the apps above are told (`active_version_changed`)."""
    with transaction.atomic():
        updated = BotVersion.objects.filter(pk=version.pk).exclude(status=VersionStatus.VALIDATING).update(
            status=VersionStatus.PENDING, attempts=0, detail="", started=None, finished=None, queued=timezone.now())
        if updated:
            active_version_changed.send(sender=Bot, bot=Bot.objects.get(pk=version.bot_id))
            transaction.on_commit(lambda: queue_validation(version.pk), robust=True)
    return bool(updated)


def set_active(*, bot: Bot, user: User, version_id: int) -> Bot:
    """Pin a valid version as the active one (roll back); the newest valid one un-pins. Decided
    under the team's and the bot's locks (`under_team_lock`), as an upload and a validation's
    `refresh_active` are, so neither can slip between the check and the save."""
    check_owner(bot=bot, user=user)
    version_id = parse_id(version_id, what="version's id")
    with transaction.atomic():
        locked = under_team_lock(bot=bot, lock_bot=True, nothing="the active version is unchanged")
        check_owner(bot=locked, user=user)
        refusal = activation_refusal(bot=locked)
        if refusal:
            raise Conflict(refusal)
        version = locked.versions.filter(pk=version_id).first()
        if version is None:
            raise NotFound(f"this bot has no version with id {version_id} (give the version's id, not its number)")
        refusal = activation_refusal(bot=locked, version=version)
        if refusal:
            raise Conflict(refusal)
        locked.active_version = version
        best = newest_valid(bot=locked)
        locked.pinned = best is not None and best.pk != version.pk
        locked.save(update_fields=["active_version", "pinned"])
        active_version_changed.send(sender=Bot, bot=locked)
    return locked


def retire_bot(*, bot: Bot, user: User) -> Bot:
    """The owner stops the bot playing; history stays."""
    check_owner(bot=bot, user=user)
    with transaction.atomic():
        locked = under_team_lock(bot=bot, lock_bot=True, nothing="it was not retired")
        check_owner(bot=locked, user=user)
        retire(bot=locked)
    return locked


def retire(*, bot: Bot) -> bool:
    """Stop a bot playing (staff, or its owner through `retire_bot`); False if it was retired already
    (asked under the bot's row lock: two retirements at once tell the apps above once)."""
    with transaction.atomic():
        row = Bot.objects.select_for_update().filter(pk=bot.pk).values("retired").first()
        if row is None or row["retired"] is not None:  # deleted meanwhile, or retired already
            return False
        bot.retired = timezone.now()
        bot.save(update_fields=["retired"])
        active_version_changed.send(sender=Bot, bot=bot)
    return True


def delete_bot(*, bot: Bot, user: User, only_if_empty: bool = False) -> None:
    """Delete a bot and its versions; their archives go on commit (armada_web.bots.receivers).
    `only_if_empty`: only while it has no version (Conflict otherwise), decided under the bot's lock,
    so an upload to it that another request makes meanwhile is never deleted with it. A shared
    team's bot with versions is deleted only by the team's last member (D-S-37: the others manage
    it too; they retire it instead), decided under the team's lock (`under_team_lock`)."""
    check_owner(bot=bot, user=user)
    with transaction.atomic():
        fresh = under_team_lock(bot=bot, nothing="it was not deleted")
        check_owner(bot=fresh, user=user)
        if only_if_empty:  # under the bot's row lock, which an upload takes before it adds its version
            Bot.objects.select_for_update().filter(pk=bot.pk).first()
            count = BotVersion.objects.filter(bot=bot).count()
            if count:
                raise Conflict(f"{bot.name} has {count} version{'s' if count != 1 else ''} now: it was not deleted")
        # Its versions first, as a match's recording locks its seats' (matches.execution.record): a
        # recording either finishes first or finds the versions gone, never waits for us in a circle.
        versions = list(BotVersion.objects.select_for_update().filter(bot=bot).order_by("pk")
                        .values_list("pk", flat=True))
        refusal = delete_refusal(bot=fresh, user=user, has_versions=bool(versions))
        if refusal:
            raise Forbidden(refusal)
        bot.delete()
        active_version_changed.send(sender=Bot, bot=bot)


def creator_deleted(*, bot: Bot, user: Any) -> None:
    """`user`, the bot's creator, deletes their account: a shared team's bot stays with the team
    that manages it (its longest-serving other member becomes its creator, D-S-8; an archived team
    without members, its longest-serving former member who left on their own, one who may restore
    it: the team keeps its bots for them, a trial); a bot of a personal team, or of a team nobody
    else was in, retires (`forget_owner`)."""
    heir = None
    if not bot.team.personal:
        others = Membership.objects.filter(team_id=bot.team_id, user__isnull=False).exclude(user=user)
        removed = others.filter(removed=True).values("user_id")  # once removed, never its heir (D-S-21)
        heir = (others.filter(left__isnull=True).order_by("joined", "id").values_list("user_id", flat=True).first()
                or others.exclude(user_id__in=removed).order_by("joined", "id")
                .values_list("user_id", flat=True).first())
    if heir is None:
        forget_owner(bot=bot)
        return
    bot.owner_id = heir
    bot.save(update_fields=["owner"])


#: The detail of a version whose owner deleted their account before its validation ended.
OWNER_GONE = "not validated: its owner deleted their account"


def forget_owner(*, bot: Bot) -> None:
    """The owner deleted their account: the bot retires, its sources, logs and validation replays are
    deleted. A version still waiting for (or in) its validation ends it here, unvalidated: a worker's
    record then no longer holds (a review: the validation ending after the deletion wrote its log and
    replay onto the forgotten version). Its rows are locked first, so a record that committed before
    is seen and its replay deleted too."""
    names: list[str] = []
    now = timezone.now()
    for version in bot.versions.select_for_update().order_by("pk"):
        names.extend(name for name in (version.archive.name, version.replay.name) if name)
        version.archive.name = ""
        version.replay.name = ""
        version.log = ""
        fields = ["archive", "replay", "log"]
        if version.status in (VersionStatus.PENDING, VersionStatus.VALIDATING):
            version.status, version.detail, version.finished = VersionStatus.INVALID, OWNER_GONE, now
            fields += ["status", "detail", "finished"]
        version.save(update_fields=fields)
    bot.retired = bot.retired or timezone.now()
    bot.owner = None
    bot.save(update_fields=["retired", "owner"])
    active_version_changed.send(sender=Bot, bot=bot)
    transaction.on_commit(lambda: _delete_files(names), robust=True)


def _delete_files(names: list[str]) -> None:
    for name in names:
        default_storage.delete(name)


#: The longest reason staff give for disabling a bot (the bot's page shows it to everyone).
DISABLED_REASON_MAX = 200


def staff_reason_max(*, staff: str) -> int:
    """The most characters of a reason staff member `staff` may type (`staff_reason` signs it)."""
    return DISABLED_REASON_MAX - len(f" ({staff})")


def staff_reason(*, given: Any, staff: str) -> str:
    """The reason a bot disabled by `staff` (their username) shows: what they typed, its spaces
    collapsed, or "disabled by staff", signed with their name. Invalid past `staff_reason_max`."""
    typed = " ".join(str(given or "").split())
    most = staff_reason_max(staff=staff)
    if len(typed) > most:
        raise Invalid(f"the reason has at most {most} characters here (this one has {len(typed)})")
    return f"{typed} ({staff})" if typed else f"disabled by staff ({staff})"


def set_disabled(*, bot: Bot, disabled: bool, reason: str = "") -> None:
    """Staff: stop a bot from playing, saying why on its page (or let it play again). Invalid for a
    reason too long or that a page cannot show as it is."""
    if disabled:
        problem = shown_text_problem(reason, what="the reason")
        if problem:
            raise Invalid(problem)
        if len(reason) > DISABLED_REASON_MAX:
            raise Invalid(f"the reason has at most {DISABLED_REASON_MAX} characters (this one has {len(reason)})")
    with transaction.atomic():
        bot.disabled = disabled
        bot.disabled_reason = reason if disabled else ""
        bot.save(update_fields=["disabled", "disabled_reason"])
        active_version_changed.send(sender=Bot, bot=bot)
