"""Keeping data and changing rules: `prune_storage` (unranked matches expire, ranked ones stay
while their bots exist, orphans go), every match's engine version, `revalidate_active` after an
engine change (re-queued validation, league rebuilt) and old replays still served."""

from __future__ import annotations

import io
import os
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

import armada
from tests.ladder.test_league_db import orders

pytestmark = pytest.mark.django_db


def finished_match(first, second, kind="ranked", days_ago=0, engine_version="2"):
    """A finished match with a stored replay and logs (played in-process: no Docker)."""
    from armada_web.matches import storage
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    match = create_match(game="galaxy", first=first, second=second, kind=kind, seed=5)
    outcome = armada.run("galaxy", ["builtin:random", "builtin:random"], seed=5, config={"max_turns": 5})
    replay = storage.save_replay(match.pk, 1, outcome.replay)
    at = timezone.now() - timedelta(days=days_ago)
    Match.objects.filter(pk=match.pk).update(status="finished", attempts=1, replay=replay, finished=at,
                                             engine_version=engine_version, turns=outcome.turns)
    for p in match.participants.all():
        p.log = storage.save_log(match.pk, 1, p.seat, f"log of seat {p.seat}\n")
        p.result = "draw"
        p.save()
    match.refresh_from_db()
    return match


def names(match) -> list[str]:
    return [match.replay.name, *[p.log.name for p in match.participants.order_by("seat")]]


def prune(*args: str) -> str:
    out = io.StringIO()
    call_command("prune_storage", *args, stdout=out)
    return out.getvalue()


def test_prune_storage_reports_then_deletes_expired_and_orphaned_files(make_user, valid_version, settings):
    from armada_web.bots import services
    from armada_web.matches.models import Match

    settings.ARMADA = settings.ARMADA.with_(unranked_keep_days=30)
    settings.ARMADA = settings.ARMADA.with_(orphan_grace_s=3600)
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    a, b, c = valid_version(alice, "alpha"), valid_version(bob, "bravo"), valid_version(carol, "charlie")
    old_challenge = finished_match(a, b, kind="challenge", days_ago=31)
    new_challenge = finished_match(a, b, kind="challenge", days_ago=29)
    old_ranked = finished_match(a, b, days_ago=400)  # ranked: kept while its bots exist
    half_gone = finished_match(b, c, days_ago=1)
    all_gone = finished_match(c, c, days_ago=1)
    services.delete_bot(bot=c.bot, user=carol)
    old_orphan = default_storage.save("matches/999/replay-a1.json.gz", ContentFile(b"x" * 100))
    os.utime(default_storage.path(old_orphan), (time.time() - 7200, time.time() - 7200))
    fresh_orphan = default_storage.save("matches/998/replay-a1.json.gz", ContentFile(b"y" * 10))
    expired = [*names(old_challenge), half_gone.participants.get(seat=2).log.name, *names(all_gone), old_orphan]
    kept = [*names(new_challenge), *names(old_ranked), half_gone.replay.name,
            half_gone.participants.get(seat=1).log.name, fresh_orphan, a.archive.name, b.archive.name]
    size = sum(default_storage.size(n) for n in expired)

    report = prune()
    assert "unranked matches past ARMADA_UNRANKED_KEEP_DAYS: 3 files" in report
    assert "ranked matches whose bots are gone: 4 files" in report
    assert "orphans (no row names them): 1 files, 100 bytes" in report
    assert f"would delete {len(expired)} files, {size} bytes" in report
    assert all(default_storage.exists(n) for n in expired + kept)  # a report deletes nothing

    report = prune("--apply")
    assert f"deleted {len(expired)} files, {size} bytes" in report
    assert not any(default_storage.exists(n) for n in expired)
    assert all(default_storage.exists(n) for n in kept)
    old_challenge = Match.objects.get(pk=old_challenge.pk)
    assert old_challenge.replay.name == "" and old_challenge.status == "finished"  # the row and result stay
    assert not any(p.log.name for p in old_challenge.participants.all())
    assert APIClient().get(f"/api/matches/{old_challenge.pk}/replay/").status_code == 404
    assert APIClient().get(f"/api/matches/{old_challenge.pk}/").json()["replay"] is None  # no link to a 404
    assert APIClient().get(f"/api/matches/{old_ranked.pk}/replay/").status_code == 200
    assert APIClient().get(f"/api/matches/{old_ranked.pk}/").json()["replay"].endswith(f"/{old_ranked.pk}/replay/")
    assert "would delete 0 files, 0 bytes" in prune()  # nothing left to do


def test_a_write_a_killed_process_left_is_an_orphan_once_past_its_grace(settings):
    """A chaos trial killed uploads mid-write: their `.partial-` files stayed for ever, hidden from
    every listing; retention now sees them, and removes them once past the orphans' grace."""
    from armada_web.storage.objectstore import PARTIAL, PrivateFileStorage, walk

    settings.ARMADA = settings.ARMADA.with_(orphan_grace_s=3600)
    stored = PrivateFileStorage(location=default_storage.location)
    kept = stored.save("versions/7/1-abc.zip", ContentFile(b"k" * 10))
    folder = Path(stored.path(kept)).parent
    dead, writing = folder / f"{PARTIAL}dead", folder / f"{PARTIAL}writing"
    dead.write_bytes(b"d" * 300)
    writing.write_bytes(b"w" * 5)
    os.utime(dead, (time.time() - 7200, time.time() - 7200))
    assert list(walk("versions", stored)) == [kept]  # (no listing of stored files shows them)
    assert f"versions/7/{PARTIAL}dead" in walk("versions", stored, partials=True)
    report = prune()
    assert "orphans (no row names them): 1 files, 300 bytes" in report
    prune("--apply")
    assert not dead.exists() and writing.exists()  # the one written within the grace may be in progress
    assert stored.exists(kept)  # (no row names it either, but it is new)


def test_revalidate_active_requeues_stale_versions_and_rebuilds_the_league(make_user, valid_version, monkeypatch,
                                                                         django_capture_on_commit_callbacks):
    from armada.games.registry import get_game
    from armada_web.bots import services
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.league import sync_league, table

    current = str(get_game("mothership").engine_version)
    races = [valid_version(make_user(f"user{n}"), f"race{n}", "mothership", orders=orders(n)) for n in range(3)]
    galaxy = valid_version(make_user("gal"), "galbot")
    BotVersion.objects.filter(pk__in=[races[1].pk, galaxy.pk]).update(engine_version="0-old")
    BotVersion.objects.filter(pk__in=[races[0].pk, races[2].pk]).update(engine_version=current)
    retired = valid_version(make_user("ret"), "retired", "mothership", orders=orders(9))
    BotVersion.objects.filter(pk=retired.pk).update(engine_version="0-old")
    services.retire(bot=retired.bot)  # not playing: left alone
    sync_league()
    assert table().count() == 3
    old_match = finished_match(races[0], races[2], engine_version="0-old")  # played on the old engine

    out = io.StringIO()
    call_command("revalidate_active", "--dry-run", stdout=out)
    assert "would re-queue 2 versions" in out.getvalue()
    assert BotVersion.objects.get(pk=races[1].pk).status == "valid"

    sent: list[int] = []
    monkeypatch.setattr(services, "queue_validation", sent.append)
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("revalidate_active", stdout=out)
    assert "re-queued 2 versions for validation; league rebuilt with 2 races" in out.getvalue()
    assert sorted(sent) == sorted([races[1].pk, galaxy.pk])
    stale = BotVersion.objects.get(pk=races[1].pk)
    assert stale.status == "pending" and stale.attempts == 0
    assert BotVersion.objects.get(pk=retired.pk).status == "valid"
    assert sorted(e.version_id for e in table()) == [races[0].pk, races[2].pk]
    assert all(e.played == 1 for e in table())
    # when the stale race validates again under the new engine it rejoins
    BotVersion.objects.filter(pk=stale.pk).update(status="valid", engine_version=current)
    assert sync_league()["added"] == 1
    # an old replay stays viewable
    response = APIClient().get(f"/api/matches/{old_match.pk}/replay/")
    assert response.status_code == 200 and old_match.engine_version == "0-old"
    assert APIClient().get(f"/api/matches/{old_match.pk}/").json()["engine_version"] == "0-old"
