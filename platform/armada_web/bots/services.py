"""Bot and version writes: create, upload, choose the active version, retire, delete.

Every function takes the acting user (or the bot) and raises BotError with a message for
the user and an HTTP status; views, API views, tasks and the admin all call these.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from armada_web.bots import storage
from armada_web.bots.models import Bot, BotVersion, Game, VersionStatus
from armada_web.bots.names import name_problem
from armada_web.bots.uploads import UploadError, check_upload

DESCRIPTION_MAX = 2000


class BotError(Exception):
    """A refused request; `status` is the HTTP code the API answers with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _check_owner(bot: Bot, user: User) -> None:
    if bot.owner_id != user.pk:
        raise BotError("not your bot", status=403)


def create_bot(user: User, name: Any, game: Any, description: Any = "") -> Bot:
    """A new bot of `user` for `game`; refuses bad or taken names and too many bots."""
    if game not in Game.values:
        raise BotError(f"unknown game {game!r}; choose one of: {', '.join(Game.values)}")
    problem = name_problem(name)
    if problem:
        raise BotError(problem)
    if description is None:
        description = ""
    if not isinstance(description, str):
        raise BotError("the description must be text")
    if len(description) > DESCRIPTION_MAX:
        raise BotError(f"description too long: {len(description)} characters (at most {DESCRIPTION_MAX})")
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)  # one creation at a time per user: the count holds
        owned = Bot.objects.filter(owner=user, game=game, retired__isnull=True).count()
        limit = settings.ARMADA_MAX_BOTS_PER_GAME
        if owned >= limit:
            raise BotError(f"you already have {owned} {Game(game).label} bots (the limit is {limit}); "
                           "retire or delete one first")
        if Bot.objects.filter(game=game, name__iexact=name).exists():
            raise BotError(f"the name {name!r} is taken for {Game(game).label}; choose another")
        return Bot.objects.create(owner=user, game=game, name=name, description=description.strip())


#: Room for the multipart envelope around the file itself.
ENVELOPE_BYTES = 64 * 1024


def check_request_size(content_length: Any) -> None:
    """Refuse a request body far larger than an upload may be, before it is read (HTTP 413)."""
    try:
        length = int(content_length or 0)
    except (TypeError, ValueError):
        return
    limit = settings.ARMADA_UPLOAD_MAX_BYTES
    if length > limit + ENVELOPE_BYTES:
        raise BotError(f"upload too large: {length} bytes sent (limit {limit} bytes)", status=413)


def uploads_last_hour(user: User) -> int:
    since = timezone.now() - timedelta(hours=1)
    return BotVersion.objects.filter(bot__owner=user, created__gte=since).count()


def upload_version(bot: Bot, user: User, filename: str, data: bytes) -> BotVersion:
    """Check an upload and store it as the bot's next version (pending); validation starts on commit."""
    _check_owner(bot, user)
    if bot.retired is not None:
        raise BotError("this bot is retired and takes no new versions; create a new bot")
    limit = settings.ARMADA_UPLOADS_PER_HOUR
    if uploads_last_hour(user) >= limit:
        raise BotError(f"upload limit reached: {limit} uploads per hour; try again within the hour", status=429)
    try:
        bundle = check_upload(filename, data)
    except UploadError as exc:
        raise BotError(str(exc)) from None
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        newest = locked.versions.order_by("-number").first()
        if newest is not None and newest.sha256 == bundle.sha256:
            raise BotError(f"this is the same code as version {newest.number} (the newest); nothing was uploaded")
        number = (locked.versions.aggregate(n=Max("number"))["n"] or 0) + 1
        version = BotVersion(bot=locked, number=number, sha256=bundle.sha256, size=bundle.uploaded_bytes,
                             files=bundle.files, status=VersionStatus.PENDING, queued=timezone.now())
        try:
            version.archive.name = storage.save_archive(version, bundle.archive)
        except OSError as exc:
            raise BotError(f"storage unavailable, nothing was saved ({exc.__class__.__name__}); try again",
                           status=503) from None
        version.save()
        transaction.on_commit(lambda: queue_validation(version.pk), robust=True)
    return version


def queue_validation(version_id: int) -> None:
    """Send the validation task (on its own queue). Safe to call twice: the task claims the row."""
    from armada_web.bots.validation import validate_version

    validate_version.apply_async(args=[version_id], queue=settings.ARMADA_VALIDATION_QUEUE)


def revalidate(version: BotVersion) -> bool:
    """Staff: validate a version again from scratch; False when it is being validated right now."""
    updated = BotVersion.objects.filter(pk=version.pk).exclude(status=VersionStatus.VALIDATING).update(
        status=VersionStatus.PENDING, attempts=0, detail="", started=None, finished=None, queued=timezone.now())
    if updated:
        transaction.on_commit(lambda: queue_validation(version.pk), robust=True)
    return bool(updated)


def newest_valid(bot: Bot) -> BotVersion | None:
    return bot.versions.filter(status=VersionStatus.VALID).order_by("-number").first()


def refresh_active(bot: Bot) -> None:
    """After a validation: the newest valid version becomes active unless the owner pinned one."""
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        if locked.pinned and locked.active_version_id is not None:
            return
        best = newest_valid(locked)
        if best is not None and best.pk != locked.active_version_id:
            locked.active_version = best
            locked.save(update_fields=["active_version"])


def set_active(bot: Bot, user: User, version_id: Any) -> Bot:
    """Pin a valid version as the active one (roll back); the newest valid one un-pins."""
    _check_owner(bot, user)
    if bot.retired is not None:
        raise BotError("this bot is retired: it plays no more, so it has no active version to choose")
    if isinstance(version_id, bool) or not isinstance(version_id, int | str) or not str(version_id).isdigit():
        raise BotError("give the version's id as an integer")
    version = bot.versions.filter(pk=int(version_id)).first()
    if version is None:
        raise BotError(f"this bot has no version with id {version_id} (give the version's id, not its number)",
                       status=404)
    if version.status != VersionStatus.VALID:
        raise BotError(f"version {version.number} is {version.status}; only a valid version can be active")
    bot.active_version = version
    best = newest_valid(bot)
    bot.pinned = best is not None and best.pk != version.pk
    bot.save(update_fields=["active_version", "pinned"])
    return bot


def retire_bot(bot: Bot, user: User) -> Bot:
    """The owner stops the bot playing; history stays."""
    _check_owner(bot, user)
    retire(bot)
    return bot


def retire(bot: Bot) -> bool:
    """Stop a bot playing (staff, or its owner through `retire_bot`); False if it was retired already."""
    if bot.retired is not None:
        return False
    bot.retired = timezone.now()
    bot.save(update_fields=["retired"])
    return True


def delete_bot(bot: Bot, user: User) -> None:
    """Delete a bot and its versions; their archives go on commit (armada_web.bots.signals)."""
    _check_owner(bot, user)
    with transaction.atomic():
        bot.delete()


def _delete_files(names: list[str]) -> None:
    from django.core.files.storage import default_storage

    for name in names:
        default_storage.delete(name)


def forget_owner(bot: Bot) -> None:
    """The owner deleted their account: the bot retires, its sources and logs are deleted."""
    names = []
    for version in bot.versions.all():
        if version.archive.name:
            names.append(version.archive.name)
        version.archive.name = ""
        version.log = ""
        version.save(update_fields=["archive", "log"])
    bot.retired = bot.retired or timezone.now()
    bot.owner = None
    bot.save(update_fields=["retired", "owner"])
    transaction.on_commit(lambda: _delete_files(names), robust=True)


def set_disabled(bot: Bot, disabled: bool, reason: str = "") -> None:
    """Staff: stop a bot from playing (or let it play again)."""
    bot.disabled = disabled
    bot.disabled_reason = reason[:200] if disabled else ""
    bot.save(update_fields=["disabled", "disabled_reason"])
