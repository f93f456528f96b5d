"""The league table in the database equals the SDK's `league(...)` for the same orders, after
each upload, after a race is replaced by its owner's newer version, and when rebuilt."""

from __future__ import annotations

import gzip
import json

import pytest

import armada
from armada.games.mothership.league import Race, league

pytestmark = pytest.mark.django_db


def orders(seed: int) -> dict:
    outcome = armada.run("mothership", ["builtin:random", "builtin:balanced"], seed=seed)
    return dict(outcome.replay["steps"][0]["answers"]["1"])


def expected(versions) -> list[tuple[int, int, int, int, int, int, int]]:
    races = [Race(v.bot.name, v.orders, submitted=(v.created, v.pk), key=v.pk) for v in versions]
    return [(row.race.key, row.points, row.wins_destruction, row.wins_damage, row.draws, row.losses,
             row.damage_difference) for row in league(races)]


def actual() -> list[tuple[int, int, int, int, int, int, int]]:
    from armada_web.ladder.league import table

    rows = list(table())
    assert [e.position for e in rows] == list(range(1, len(rows) + 1))
    return [(e.version_id, e.points, e.wins_destruction, e.wins_damage, e.draws, e.losses, e.damage_difference)
            for e in rows]


def test_the_table_follows_uploads_and_replacements(make_user, valid_version):
    from armada_web.bots import activation, services
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.league import sync_league

    versions = []
    for n in range(7):
        owner = make_user(f"user{n}")
        versions.append(valid_version(owner, f"race{n}", "mothership", orders=orders(n)))
        assert sync_league()["added"] == 1
        assert actual() == expected(versions)
    assert sync_league() == {"added": 0, "removed": 0, "races": 7}
    # race 3's owner uploads a better version: the old one leaves the table
    old = versions[3]
    newer = services.upload_version(bot=old.bot, user=old.bot.owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=newer.pk).update(status="valid", orders=orders(100))
    activation.refresh_active(bot=old.bot)
    assert sync_league() == {"added": 1, "removed": 1, "races": 7}
    versions[3] = BotVersion.objects.select_related("bot").get(pk=newer.pk)
    assert actual() == expected(sorted(versions, key=lambda v: v.pk))
    # a retired bot leaves too
    services.retire(bot=versions[0].bot)
    assert sync_league()["removed"] == 1
    assert actual() == expected(sorted(versions[1:], key=lambda v: v.pk))


def test_a_battle_replay_is_the_battle_of_the_stored_orders(make_user, valid_version):
    from armada.games.mothership.battle import battle
    from armada_web.ladder.league import battle_replay

    a = valid_version(make_user("ann"), "aaa", "mothership", orders=orders(1))
    b = valid_version(make_user("ben"), "bbb", "mothership", orders=orders(2))
    replay = json.loads(gzip.decompress(battle_replay(a, b)))
    assert replay["format"] == "armada-replay" and replay["game"] == "mothership"
    fought = battle({k: v for k, v in a.orders.items() if k != "id"}, {k: v for k, v in b.orders.items() if k != "id"})
    assert replay["result"]["winner"] == fought.winner
    assert "timings" not in replay  # the stand-ins' clock, not the races' bots' (a trial read 0.1 ms)


def test_the_table_follows_the_bots_on_commit_deleting_one_too(make_user, valid_version,
                                                             django_capture_on_commit_callbacks):
    """`active_version_changed` (bots) -> the ladder's receiver syncs the league once committed; a
    deleted bot's entry goes with its version, and the others' sums are rebuilt without it."""
    from armada_web.bots import services
    from armada_web.ladder.models import LeagueEntry

    versions = []
    for n in range(4):
        owner = make_user(f"user{n}")
        with django_capture_on_commit_callbacks(execute=True):
            versions.append(valid_version(owner, f"race{n}", "mothership", orders=orders(n)))
    assert actual() == expected(versions)
    with django_capture_on_commit_callbacks(execute=True):
        services.retire(bot=versions[0].bot)
    assert actual() == expected(versions[1:])
    with django_capture_on_commit_callbacks(execute=True):
        services.delete_bot(bot=versions[1].bot, user=versions[1].bot.owner)
    assert actual() == expected(versions[2:])
    assert {e.played for e in LeagueEntry.objects.all()} == {1}
