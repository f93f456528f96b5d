"""Behaviour signatures kept in the database: a valid version run on its game's probe set
(`integrity.logic.probes`) in the sandbox, after its validation (a task on the validation
queue, whose workers have the sandbox), its answers hashed and kept; a version already probed
(with the current probe set) is never probed again, and what lacks a signature is caught up.

The sandbox is `games.runner.sandboxed`: the stored archive unpacked once, one fresh sandboxed
connection per probe, fed the probe's requests by `armada.referee.rerun.answer_all` (the code
`armada replay --rerun` uses). Any maker of connections of the same shape serves (the tests
run the bot as a process).
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from armada.referee.connection import BotConnection, Unavailable
from armada_web.bots import storage as bot_storage
from armada_web.bots.models import BotVersion, VersionStatus
from armada_web.games import runner
from armada_web.integrity.logic import probes
from armada_web.integrity.models import Behaviour

log = logging.getLogger(__name__)
#: How a version is run: `games.runner.sandboxed`'s shape (a maker of fresh connections to the archive).
Sandbox = Callable[..., AbstractContextManager[Callable[[], BotConnection]]]


def probe_version(*, version: BotVersion, sandbox: Sandbox | None = None) -> Behaviour | None:
    """Run a valid version on its game's probe set and keep its signature (with its own answers,
    the evidence); the kept one when it was probed with the current probe set already. None when
    it is not valid, or cannot be run now (its archive unreadable, the sandbox down: logged; the
    catch-up tries again)."""
    if version.status != VersionStatus.VALID:
        return None
    probe_set = probes.probe_set(version.bot.game)
    kept = Behaviour.objects.filter(version=version, digest=probe_set.digest).first()
    if kept is not None:
        return kept
    archive = bot_storage.source(version)  # read from storage only when the host's cache misses it
    run = sandbox or runner.sandboxed
    try:
        with run(game=version.bot.game, archive=archive, name=version.bot.name, label=f"version-{version.pk}") as make:
            answers, fault = probes.probe_with(probe_set, make)
    except (runner.PlatformFailure, Unavailable) as exc:
        log.warning("version %s could not be probed now: %s", version.pk, exc)
        return None
    hashes = probes.signature(probe_set.game, answers)
    shared = probe_set.shared()
    own = {str(i): answer for i, answer in enumerate(answers) if hashes[i] and hashes[i] not in shared[i]}
    row, _created = Behaviour.objects.update_or_create(version=version, defaults={
        "digest": probe_set.digest, "hashes": probes.pack(hashes), "positions": len(hashes),
        "answers": zlib.compress(json.dumps(own, separators=(",", ":")).encode()), "fault": fault[:300],
    })
    return row


def missing(*, versions: list[int] | None = None) -> list[int]:
    """Valid versions (of `versions`, or all) with an archive and no signature of their game's
    current probe set, oldest first."""
    rows = BotVersion.objects.filter(status=VersionStatus.VALID).exclude(archive="")
    if versions is not None:
        rows = rows.filter(pk__in=versions)
    listed = list(rows.order_by("pk").values_list("pk", "bot__game", "behaviour__digest"))
    current = {game: probes.probe_set(game).digest for game in {g for _pk, g, _d in listed} if game in probes.GAMES}
    return [pk for pk, game, digest in listed if game in current and digest != current[game]]


def hashes_of(row: Behaviour) -> tuple[int, ...]:
    """A kept signature's hashes."""
    return probes.unpack(bytes(row.hashes))


def answers_of(row: Behaviour) -> dict[int, Any] | None:
    """A kept signature's own answers by position, or None when they are not kept (pruned)."""
    data = bytes(row.answers or b"")
    if not data:
        return None
    try:
        return {int(k): v for k, v in json.loads(zlib.decompress(data)).items()}
    except (zlib.error, ValueError):
        return None
