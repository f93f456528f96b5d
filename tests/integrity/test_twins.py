"""Behavioural twins in the database: a valid version is sent to be probed when its validation
commits, probed once (the sandbox path with a process or in-process connection: the same
function), caught up when its signature is missing or of another probe set; `find_twins` writes
one finding per pair of bots with the turns they agree on, and says so when answers are pruned."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from armada.referee.connection import Unavailable
from armada.referee.inprocess import InProcessBot
from armada.referee.process_bot import ProcessBot
from tests.integrity import twin_bots as tb

pytestmark = pytest.mark.django_db


@contextlib.contextmanager
def unpacked(archive: Any, tmp: Path) -> Iterator[Path]:
    """The archive (a stored `Source`, as the real sandbox gets it) unpacked into a new folder."""
    from armada_web.storage.archives import unpack

    folder = tmp / f"bot{len(list(tmp.iterdir()))}"
    folder.mkdir()
    with archive.open() as handle:
        unpack(archive=handle.read(), dest=str(folder))
    yield folder


def in_process(tmp: Path, runs: list[str] | None = None) -> Any:
    """`games.runner.sandboxed`'s shape, the bot played in this process."""
    @contextlib.contextmanager
    def sandbox(*, game: str, archive: Any, name: str, label: str) -> Iterator[Any]:
        if runs is not None:
            runs.append(label)
        with unpacked(archive, tmp) as folder:
            source = (folder / "main.py").read_text()
            yield lambda: InProcessBot(tb.bot_of(source))
    return sandbox


def as_process(tmp: Path) -> Any:
    """`games.runner.sandboxed`'s shape, the bot run as a process (as DockerBot runs it, unconfined)."""
    @contextlib.contextmanager
    def sandbox(*, game: str, archive: Any, name: str, label: str) -> Iterator[Any]:
        with unpacked(archive, tmp) as folder:
            yield lambda: ProcessBot.for_script(folder / "main.py", label=name)
    return sandbox


def test_a_valid_version_is_sent_to_be_probed_once_its_validation_commits(valid_version, make_user, monkeypatch,
                                                                          django_capture_on_commit_callbacks):
    from armada_web.bots import validation
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import create_bot, upload_version
    from armada_web.integrity import tasks
    from armada_web.jobs import queues
    from armada_web.jobs.leases import claim
    from tests.integrity.test_copies import crashed_report, ok_report

    sent: list[Any] = []
    monkeypatch.setattr(tasks.probe_version, "apply_async", lambda args, queue: sent.append((args, queue)))
    owner = make_user("uploader")
    for report, status in ((crashed_report, "invalid"), (ok_report, "valid")):
        version = upload_version(bot=create_bot(user=owner, name=f"b{status}", game="galaxy"), user=owner,
                                 filename="main.py", data=tb.RESERVE.encode())
        monkeypatch.setattr(validation, "validation_game", report)
        with django_capture_on_commit_callbacks(execute=True):
            assert validation.run(claim(kind=validation.VALIDATION, job_id=version.pk)) == status
            assert sent == []  # not before the commit
    valid = BotVersion.objects.get(bot__name="bvalid")
    assert sent == [([valid.pk], queues.name(queues.Role.VALIDATION))]  # only the valid one, to the sandbox's queue


def test_runs_of_the_checks_send_each_probe_once_while_it_may_still_wait(monkeypatch):
    """A reliability review: every run sent a probe for each version still without a signature, its
    last probe perhaps still waiting in the validation queue (uploads' queue): two runs sent 2,000
    messages for 1,000 versions. A probe sent stands for PROBE_SENT_S; a run sends at most CATCH_UP."""
    from django.core.cache import cache

    from armada_web.integrity import tasks

    sent: list[int] = []
    monkeypatch.setattr(tasks.probe_version, "apply_async", lambda args, queue: sent.append(args[0]))
    monkeypatch.setattr(tasks, "CATCH_UP", 100)  # (the test cache keeps 300 keys)
    monkeypatch.setattr(tasks, "missing", lambda: list(range(1, 121)))
    monkeypatch.setattr(tasks, "run_checks", lambda **_: [])
    tasks.integrity_checks(None, ran_by="staff")
    assert sent == list(range(1, 101))
    tasks.integrity_checks(None, ran_by="staff")  # pressed again: only the ones not sent yet
    assert sent == list(range(1, 121))
    cache.delete(tasks.probe_sent_key(7))  # its hour is over (or the probe was never sent)
    tasks.integrity_checks(None, ran_by="staff")
    assert sent[120:] == [7]

    def broker_down(args: Any, queue: str) -> None:
        raise ConnectionError("no broker")

    cache.delete(tasks.probe_sent_key(8))
    monkeypatch.setattr(tasks.probe_version, "apply_async", broker_down)
    with pytest.raises(ConnectionError):
        tasks.queue_probe(8)
    assert cache.get(tasks.probe_sent_key(8)) is None  # not sent: free for the next run


def test_a_version_is_probed_in_its_sandbox_once(valid_version, make_user, tmp_path, monkeypatch):
    from armada_web.integrity.behaviour import answers_of, hashes_of, missing, probe_version
    from armada_web.integrity.logic import probes
    from armada_web.integrity.models import Behaviour

    whole = probes.probe_set("mothership")
    first = probes.ProbeSet("mothership", whole.probes[:1], "first-only", {n: s[:1] for n, s in whole.starters.items()})
    monkeypatch.setattr(probes, "probe_set", lambda game: first)  # one probe: one process to start
    version = valid_version(make_user("maker"), "thirds", game="mothership", code=tb.THIRDS)
    assert missing() == [version.pk]
    row = probe_version(version=version, sandbox=as_process(tmp_path))
    assert row is not None and row.digest == "first-only" and row.fault == "" and row.positions == 1
    answers, _fault = probes.probe_with(first, lambda: InProcessBot(tb.bot_of(tb.THIRDS)))
    assert hashes_of(row) == probes.signature("mothership", answers)  # a process answers as in this process
    assert answers_of(row) == {0: answers[0]} and answers[0]  # its own answer, kept
    runs: list[str] = []
    assert probe_version(version=version, sandbox=in_process(tmp_path, runs)) == row and runs == []  # not again
    assert missing() == []
    Behaviour.objects.filter(pk=row.pk).update(digest="an-older-set")  # the probe set changed since
    assert missing() == [version.pk]
    assert probe_version(version=version, sandbox=in_process(tmp_path, runs)).digest == "first-only"
    assert runs == [f"version-{version.pk}"] and Behaviour.objects.count() == 1


def test_a_version_that_cannot_run_now_is_left_for_later(valid_version, make_user, tmp_path):
    from armada_web.integrity.behaviour import missing, probe_version
    from armada_web.integrity.models import Behaviour

    version = valid_version(make_user("maker"), "thirds", game="mothership", code=tb.THIRDS)

    @contextlib.contextmanager
    def down(**_: Any) -> Iterator[Any]:
        raise Unavailable("no Docker engine")
        yield

    assert probe_version(version=version, sandbox=down) is None
    version.status = "invalid"
    assert probe_version(version=version, sandbox=in_process(tmp_path)) is None  # only valid versions
    assert not Behaviour.objects.exists() and missing() == [version.pk]


#: Signatures probed once per source in this process (the probing itself is tested above).
_PROBED: dict[str, dict[str, Any]] = {}


def probed(version: Any, source: str, tmp: Path) -> None:
    """Probe `version` in this process, or copy the row of a version of the same source."""
    from armada_web.integrity.behaviour import probe_version
    from armada_web.integrity.models import Behaviour

    if source in _PROBED:
        Behaviour.objects.create(version=version, **_PROBED[source])
        return
    row = probe_version(version=version, sandbox=in_process(tmp))
    assert row is not None
    _PROBED[source] = {"digest": row.digest, "hashes": bytes(row.hashes), "positions": row.positions,
                       "answers": bytes(row.answers), "fault": row.fault}


@pytest.fixture
def arena(valid_version, make_user, tmp_path):
    """alice wrote RESERVE first, bob rewrote it (same decisions, other code); carol converged on
    the same simple idea with her own numbers, frank plays the `greedy` starter and dave `prober`."""
    from armada.botspec import starter_file
    from armada_web.bots.models import BotVersion

    made = {}
    start = timezone.now() - timedelta(days=10)
    for day, (user, bot, code) in enumerate([
        ("alice", "reserve", tb.RESERVE), ("bob", "raider", tb.RESERVE_REWRITE), ("carol", "careful", tb.CAREFUL),
        ("frank", "mygreedy", starter_file("greedy", "galaxy").read_text()),
        ("dave", "myprober", starter_file("prober", "galaxy").read_text()),
    ]):
        version = valid_version(make_user(user), bot, code=code)
        BotVersion.objects.filter(pk=version.pk).update(created=start + timedelta(days=day))
        probed(version, code, tmp_path)
        made[user] = version
    made["alice2"] = valid_version(made["alice"].bot.owner, "reserve2", code=tb.RESERVE)  # her own twice
    probed(made["alice2"], tb.RESERVE, tmp_path)
    return made


def test_find_twins_reports_the_rewrite_with_the_turns_they_agree_on(arena):
    from armada_web.integrity.logic.twins import THRESHOLD
    from armada_web.integrity.models import Finding
    from armada_web.integrity.queries import links
    from armada_web.integrity.twins import find_twins

    found = find_twins()
    assert len(found) == Finding.objects.count() == 2  # the rewrite of each of alice's bots; never her own two
    alice, bob, alice2 = arena["alice"], arena["bob"], arena["alice2"]
    assert [f.subjects for f in found] == [[alice.pk, bob.pk], [bob.pk, alice2.pk]]  # the earlier upload first
    twin = found[0]
    assert twin.kind == "twin" and twin.subjects == [alice.pk, bob.pk] and twin.evidence["first"] == alice.pk
    assert twin.key == f"bots:{alice.bot_id}-{bob.bot_id}" and twin.score == 1.0 >= THRESHOLD
    assert twin.reason.startswith("bob's raider v1 gives the same answers as alice's reserve v1 on ")
    evidence = twin.evidence
    assert evidence["agreed"] == evidence["own"][0] == evidence["own"][1] > 50 and evidence["z"] >= 4
    assert evidence["owners_probed"] == 5 and evidence["rating_gap"] == "0-1"  # both newly rated
    # Six versions are too few pairs to measure what pairs agree: the reason says so (a trial read the
    # figure as measured at their rating gap).
    assert evidence["baseline"] == "none" and evidence["pairs_sampled"] < 20
    assert twin.reason.endswith(f"no agreement expected: {evidence['pairs_sampled']} pairs of versions are too "
                                "few to measure what pairs agree (at least 20))")
    turns = evidence["turns"]
    assert len(turns) == 10 and all(t["owners"] == 2 and t["of"] == 5 for t in turns)  # only they answer so
    assert {t["phase"] for t in turns} <= {"scout", "command"} and all(t["answer"].startswith("{") for t in turns)
    assert "answers_note" not in evidence
    labels = [link.label for link in links(twin)]
    assert labels == ["agreed turns", "reserve v1", "raider v1"]


def test_pruned_answers_say_so_and_the_check_still_reports(arena):
    from armada_web.integrity.models import Behaviour
    from armada_web.integrity.twins import find_twins

    alice, bob = arena["alice"], arena["bob"]
    Behaviour.objects.filter(version=alice).update(answers=b"")
    evidence = find_twins()[0].evidence  # alice's and bob's
    assert evidence["answers_note"] == f"the answers of version {alice.pk} are no longer stored"
    assert all("answer" in t for t in evidence["turns"])  # bob's kept answers are the same
    Behaviour.objects.filter(version=bob).update(answers=b"")
    evidence = find_twins()[0].evidence
    assert evidence["answers_note"] == (f"the answers of versions {alice.pk} and {bob.pk} are no longer stored: "
                                        "the turns are listed without them")
    assert evidence["turns"] and not any("answer" in t for t in evidence["turns"])


def test_the_report_and_its_json_hold_the_twins(arena, client, make_user):
    from io import StringIO

    from django.core.management import call_command

    from armada_web.integrity.checks import run_checks
    from armada_web.integrity.models import AuditEntry

    found = run_checks()
    assert [f.kind for f in found] == ["twin", "twin"]
    assert AuditEntry.objects.first().note == "0 copy, 2 twin, 0 accounts, 0 collusion"
    out = StringIO()
    call_command("integrity", "--json", stdout=out)
    twin = json.loads(out.getvalue())["findings"][0]
    assert twin["kind"] == "twin" and twin["subjects"] == [arena["alice"].pk, arena["bob"].pk]
    assert twin["score"] == 1.0 and twin["reason"].startswith("bob's raider v1")
    client.force_login(make_user("staffer", is_staff=True))
    page = client.get(f"/staff/integrity/{found[0].pk}/").content.decode()
    assert 'id="agreed-turns"' in page and "2 of 5" in page and "&quot;fleets&quot;" in page


def test_a_season_reports_the_pairs_touching_its_entries(arena):
    from armada_web.integrity.twins import find_twins
    from armada_web.seasons.models import Entry
    from armada_web.seasons.services import close_season, create_season

    season = create_season(slug="spring", game="galaxy", name="Spring")
    close_season(season=season)  # every playing version enters
    found = find_twins(season=season)
    assert len(found) == 2 and all(f.season == season for f in found)
    Entry.objects.filter(season=season, version__in=[arena["alice"], arena["alice2"]]).delete()
    assert len(find_twins(season=season)) == 2  # bob's entry is in both pairs
    Entry.objects.filter(season=season, version=arena["bob"]).delete()
    assert find_twins(season=season) == [] and find_twins(season=None) != []  # the season's open ones pruned


def test_teammates_playing_alike_are_no_twins(arena):
    """D-S-20: once bob's bot is in alice's team, her bots and his are one side."""
    from armada_web.bots.models import Bot
    from armada_web.integrity.twins import find_twins
    from armada_web.teams.services import create_team, join_team

    alice, bob = arena["alice"].bot.owner, arena["bob"].bot.owner
    assert len(find_twins()) == 2
    team = create_team(user=alice, name="Reserves")
    join_team(user=bob, team=team, key=team.join_key)
    Bot.objects.filter(pk=arena["bob"].bot_id).update(team=team)
    assert find_twins() == []
