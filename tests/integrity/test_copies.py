"""Copied code in the database: a version is fingerprinted when its validation's result commits,
the missing fingerprints are caught up incrementally, and `find_copies` writes one finding per
pair of bots of different owners (similarity, which came first, the passages), updates it when
run again and keeps staff's status."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from tests.integrity import samples

pytestmark = pytest.mark.django_db


def ok_report(**_: Any) -> Any:
    from armada_web.bots.validation import ValidationReport

    return ValidationReport(status="ok", detail="", log="", name="Frontier", orders=None, engine_version="2")


def crashed_report(**_: Any) -> Any:
    from armada_web.bots.validation import ValidationReport

    return ValidationReport(status="crashed", detail="SyntaxError", log="", name="", orders=None, engine_version="2")


@pytest.fixture
def uploaded(make_user):
    from armada_web.bots.services import create_bot, upload_version

    def upload(source: str, name: str = "checked") -> Any:
        owner = make_user(name + "-owner")
        bot = create_bot(user=owner, name=name, game="galaxy")
        return upload_version(bot=bot, user=owner, filename="main.py", data=source.encode())

    return upload


@pytest.mark.parametrize(("report", "source", "status"), [
    (ok_report, samples.ORIGINAL, "valid"),
    (crashed_report, "def broken(:\n    pass\n" + samples.ORIGINAL, "invalid"),
])
def test_a_version_is_fingerprinted_once_its_validation_commits(uploaded, monkeypatch, report, source, status,
                                                               django_capture_on_commit_callbacks):
    from armada_web.bots import validation
    from armada_web.integrity.logic.fingerprints import SCHEME, fingerprint, pack
    from armada_web.integrity.models import Fingerprint
    from armada_web.jobs.leases import claim

    version = uploaded(source)
    monkeypatch.setattr(validation, "validation_game", report)
    with django_capture_on_commit_callbacks(execute=True):
        assert validation.run(claim(kind=validation.VALIDATION, job_id=version.pk)) == status
        assert not Fingerprint.objects.exists()  # not before the commit
    row = Fingerprint.objects.get(version=version)
    expected = fingerprint({"main.py": source})
    assert bytes(row.hashes) == pack(expected.hashes) and row.count == len(expected.hashes)
    assert row.tokens == expected.tokens and row.scheme == SCHEME
    assert row.text_files == ([] if status == "valid" else ["main.py"])  # a source that does not parse: as text


def test_only_a_budget_of_a_versions_sources_is_fingerprinted_and_the_rest_is_named(uploaded, make_user, client):
    """A megabyte `.py` file is cut at SOURCE_FILE_BUDGET (tokenizing it whole took a worker seconds and
    hundreds of MiB per MiB of source), and what was not read is kept and listed on the report,
    since padding a bot with Python is how copied code could hide past the budget."""
    from armada_web.integrity.fingerprints import SOURCE_FILE_BUDGET, fingerprint_version, read_sources
    from armada_web.integrity.queries import partly_read

    source = samples.ORIGINAL + "TABLE = [\n" + "    1, 2, 3, 4, 5, 6, 7, 8,\n" * 60_000 + "]\n"  # 1.7 MB
    version = uploaded(source)
    assert read_sources(version) == ({"main.py": source[:SOURCE_FILE_BUDGET]}, ["main.py"])
    row = fingerprint_version(version=version)
    assert row is not None and row.tokens < SOURCE_FILE_BUDGET and row.unread == ["main.py"]  # whole: a million
    small = uploaded(samples.ORIGINAL, name="small")
    assert fingerprint_version(version=small).unread == []
    from armada_web.bots.models import BotVersion

    BotVersion.objects.filter(pk__in=[version.pk, small.pk]).update(status="valid")
    assert [(p.version.pk, p.unread) for p in partly_read(season=None)] == [(version.pk, ["main.py"])]
    staff = make_user("staff", is_staff=True)
    client.force_login(staff)
    page = client.get("/staff/integrity/").content.decode()
    assert "Sources not all compared" in page and f"/bots/{version.bot_id}/versions/1/" in page


def test_a_version_in_error_is_fingerprinted_too(uploaded, monkeypatch, armada, django_capture_on_commit_callbacks):
    from armada_web.bots import validation
    from armada_web.games.runner import PlatformFailure
    from armada_web.integrity.models import Fingerprint
    from armada_web.jobs.leases import claim

    def down(**_: Any) -> Any:
        raise PlatformFailure("the sandbox is down")

    armada(validation_attempts=1)
    version = uploaded(samples.ORIGINAL)
    monkeypatch.setattr(validation, "validation_game", down)
    with django_capture_on_commit_callbacks(execute=True):
        assert validation.run(claim(kind=validation.VALIDATION, job_id=version.pk)) == "error"
    assert Fingerprint.objects.filter(version=version).exists()


def test_a_lost_archive_leaves_the_validation_alone_and_is_caught_up_later(uploaded, monkeypatch,
                                                                         django_capture_on_commit_callbacks):
    from armada_web.bots import validation
    from armada_web.integrity.fingerprints import fingerprint_missing
    from armada_web.integrity.models import Fingerprint
    from armada_web.jobs.leases import claim

    version = uploaded(samples.ORIGINAL)
    lease = claim(kind=validation.VALIDATION, job_id=version.pk)
    archive = validation.storage.read_archive(version)
    monkeypatch.setattr(validation, "validation_game", ok_report)
    monkeypatch.setattr(validation, "storage", SimpleNamespace(  # the game read it (or this host had it unpacked)...
        source=lambda v: validation.Source.of_bytes(archive)))
    default_storage.delete(version.archive.name)  # ...then the storage lost it
    with django_capture_on_commit_callbacks(execute=True):
        assert validation.run(lease) == "valid"
    version.refresh_from_db()
    assert version.status == "valid" and not Fingerprint.objects.exists()
    default_storage.save(version.archive.name, ContentFile(archive))  # back (a restored backup)
    assert fingerprint_missing() == 1 and Fingerprint.objects.filter(version=version).exists()


def test_missing_fingerprints_are_computed_incrementally(valid_version, make_user):
    from armada_web.integrity.fingerprints import fingerprint_missing
    from armada_web.integrity.models import Fingerprint

    owner = make_user("olga")
    first = valid_version(owner, "first", code=samples.ORIGINAL)
    valid_version(owner, "second", code=samples.HONEST_WEAKEST)
    assert fingerprint_missing(limit=1) == 1 and Fingerprint.objects.count() == 1
    assert fingerprint_missing() == 1 and Fingerprint.objects.count() == 2
    assert fingerprint_missing() == 0  # nothing left to do
    Fingerprint.objects.filter(version=first).update(scheme=0)  # computed with an older scheme
    assert fingerprint_missing() == 1 and Fingerprint.objects.get(version=first).scheme > 0


def test_catching_up_in_processes_keeps_what_one_process_computes(valid_version, make_user):
    from armada_web.integrity.fingerprints import fingerprint_missing
    from armada_web.integrity.models import Fingerprint

    owner = make_user("otto")
    for n, code in enumerate((samples.ORIGINAL, samples.HONEST_WEAKEST, samples.DEAD_CODE)):
        valid_version(owner, f"bot{n}", code=code)
    assert fingerprint_missing(workers=1) == 3
    alone = {row.version_id: bytes(row.hashes) for row in Fingerprint.objects.all()}
    Fingerprint.objects.all().delete()
    assert fingerprint_missing(workers=2) == 3
    assert {row.version_id: bytes(row.hashes) for row in Fingerprint.objects.all()} == alone
    assert fingerprint_missing(workers=2) == 0  # a second catch-up does nothing


@pytest.fixture
def arena(valid_version, make_user):
    """alice wrote ORIGINAL first; bob renamed and reordered it, carol added dead code; the others are honest."""
    from armada_web.bots.models import BotVersion

    made = {}
    start = timezone.now() - timedelta(days=10)
    for day, (user, bot, code) in enumerate([
        ("alice", "frontier", samples.ORIGINAL), ("bob", "wanderer", samples.RENAMED_REORDERED),
        ("carol", "padded", samples.DEAD_CODE), ("dave", "scavenger", samples.HONEST_WEAKEST),
        ("erin", "weakfirst", samples.HONEST_FRONTIER), ("frank", "mygreedy", samples.STARTER_EDIT_1),
        ("gina", "greedier", samples.STARTER_EDIT_2), ("hugo", "tiny", samples.TINY_1),
        ("ines", "tinier", samples.TINY_2),
    ]):
        version = valid_version(make_user(user), bot, code=code)
        BotVersion.objects.filter(pk=version.pk).update(created=start + timedelta(days=day))
        made[user] = version
    made["alice2"] = valid_version(made["alice"].bot.owner, "frontier2", code=samples.ORIGINAL)  # her own twice
    return made


def test_find_copies_lists_each_copied_pair_once_with_its_evidence(arena):
    from armada_web.integrity.copies import find_copies
    from armada_web.integrity.logic.copies import THRESHOLD
    from armada_web.integrity.models import Finding

    found = find_copies()
    pairs = sorted(tuple(v["bot"] for v in f.evidence["versions"]) for f in found)
    assert pairs == [("frontier", "padded"), ("frontier", "wanderer"), ("padded", "frontier2"),
                     ("wanderer", "frontier2"), ("wanderer", "padded")]  # earlier first; never alice's two
    assert len(found) == Finding.objects.count() == 5
    assert [f.score for f in found] == sorted((f.score for f in found), reverse=True)
    copy = next(f for f in found if {v["owner"] for v in f.evidence["versions"]} == {"alice", "bob"})
    alice, bob = arena["alice"], arena["bob"]
    assert copy.kind == "copy" and copy.season is None and copy.status == "open"
    assert copy.subjects == [alice.pk, bob.pk] and copy.evidence["first"] == alice.pk  # alice's came first
    assert copy.score >= THRESHOLD and copy.key == f"bots:{alice.bot_id}-{bob.bot_id}"
    assert copy.reason.startswith("bob's wanderer v1 shares") and "alice's frontier v1" in copy.reason
    assert "1 days earlier" in copy.reason or "24 h earlier" in copy.reason
    passage = copy.evidence["passages"][0]
    assert passage["a"]["file"] == "main.py" and passage["b"]["last"] >= passage["b"]["first"] >= 1
    assert copy.evidence["own"][0] >= 20 and copy.evidence["compared"].startswith("sides")


def test_uploads_seconds_apart_do_not_name_the_copier(arena):
    """An organiser's trial: alice and dave submitted at once, dave's bot alice's code renamed; 0.14 s
    decided that alice was the copier ("... uploaded 0 s earlier"). Under a minute apart the reason
    says the times cannot tell; a minute or more apart it names the earlier as before."""
    from armada_web.bots.models import BotVersion
    from armada_web.integrity.copies import SAME_TIME_S, find_copies

    alice, bob = arena["alice"], arena["bob"]
    alice.refresh_from_db()
    for gap, apart, unknown in ((0.14, "less than 1 s", True), (SAME_TIME_S - 0.3, "59 s", True),
                                (SAME_TIME_S, "", False)):
        BotVersion.objects.filter(pk=bob.pk).update(created=alice.created + timedelta(seconds=gap))
        copy = next(f for f in find_copies() if {v["owner"] for v in f.evidence["versions"]} == {"alice", "bob"})
        assert copy.reason.endswith(f"; the two bots had that code {apart} apart, too close for the times to "
                                    "tell which is the copy") is unknown, copy.reason
        assert copy.evidence.get("order_unknown", False) is unknown
        if not unknown:
            assert copy.reason.endswith("alice's frontier v1, uploaded 1 min earlier")


def test_a_lower_threshold_finds_more_and_a_wrong_one_is_refused(arena):
    from armada_web.integrity.copies import find_copies
    from armada_web.web.errors import Invalid

    assert len(find_copies(threshold=0.95)) < len(find_copies()) == 5
    for wrong in (0, 1.5, "0.5", True):
        with pytest.raises(Invalid):
            find_copies(threshold=wrong)


def test_running_again_updates_keeps_staff_status_and_drops_what_is_gone(arena):
    from armada_web.integrity.copies import find_copies
    from armada_web.integrity.models import Finding

    first = {f.key: f for f in find_copies()}
    dismissed = next(iter(first))
    Finding.objects.filter(key=dismissed).update(status="dismissed", score=0.1)
    again = find_copies()
    assert {f.key for f in again} == set(first) and Finding.objects.count() == 5
    kept = Finding.objects.get(key=dismissed)
    assert kept.status == "dismissed" and kept.score == first[dismissed].score  # updated, not added
    for copier in ("bob", "carol"):  # the copies are now alice's own bots
        arena[copier].bot.owner = arena["alice"].bot.owner
        arena[copier].bot.save()
    assert find_copies() == []
    assert list(Finding.objects.values_list("key", "status")) == [(dismissed, "dismissed")]  # staff's decision stays


def test_a_second_run_keeps_the_passages_without_reading_the_sources(arena, monkeypatch):
    from armada_web.integrity import copies

    first = {f.key: f.evidence["passages"] for f in copies.find_copies()}
    assert first and all(first.values())
    read = []
    monkeypatch.setattr(copies, "sources", lambda version: read.append(version.pk))
    assert {f.key: f.evidence["passages"] for f in copies.find_copies()} == first
    assert read == []  # nothing fingerprinted again, no source read


def test_a_season_compares_its_entries_and_a_pruned_source_says_so(arena, make_user):
    from armada_web.integrity.copies import find_copies
    from armada_web.integrity.fingerprints import fingerprint_missing
    from armada_web.seasons.services import close_season, create_season

    season = create_season(slug="spring", game="galaxy", name="Spring")
    close_season(season=season)  # every playing version enters
    assert fingerprint_missing() == 10
    default_storage.delete(arena["alice"].archive.name)  # pruned since it was fingerprinted
    found = [f for f in find_copies(season=season) if arena["alice"].pk in f.subjects]
    assert found and all(f.season == season for f in found)
    assert all(f.evidence["passages"] is None for f in found)
    assert found[0].evidence["passages_note"] == f"the sources of version {arena['alice'].pk} are no longer stored"


def test_a_teams_members_sharing_code_is_no_copy_and_a_former_member_keeps_it(arena, make_user):
    """D-S-20: bob copied alice; once both are in one team (or bob was), the pair is one side."""
    from armada_web.integrity.copies import find_copies
    from armada_web.teams.models import Membership
    from armada_web.teams.services import create_team, join_team

    def pairs() -> set[frozenset[str]]:
        return {frozenset(v["owner"] for v in f.evidence["versions"]) for f in find_copies()}

    alice, bob = arena["alice"].bot.owner, arena["bob"].bot.owner
    assert frozenset({"alice", "bob"}) in pairs()
    team = create_team(user=alice, name="Frontier team")
    join_team(user=bob, team=team, key=team.join_key)
    assert frozenset({"alice", "bob"}) not in pairs()  # their bots are personal; they are teammates
    Membership.objects.filter(team=team, user=bob).update(left=timezone.now())
    assert frozenset({"alice", "bob"}) not in pairs()  # a former member keeps it
    assert frozenset({"alice", "carol"}) in pairs() and frozenset({"bob", "carol"}) in pairs()
    copy = next(iter(find_copies()))
    assert copy.evidence["compared"].startswith("sides")


@pytest.fixture
def winter(valid_version, make_user):
    """alice's v1 (day 0), carol's copy of it (day 1), alice's v2 (day 2); season winter closed with
    alice's v2 and carol's v1 entered."""
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import upload_version
    from armada_web.seasons.services import close_season, create_season

    start = timezone.now() - timedelta(days=3)
    alice1 = valid_version(make_user("alice"), "alicebot", code=samples.ORIGINAL)
    carol1 = valid_version(make_user("carol"), "carolbot", code=samples.RENAMED_REORDERED)
    alice2 = upload_version(bot=alice1.bot, user=alice1.bot.owner, filename="main.py",
                            data=(samples.ORIGINAL + "\n# v2\n").encode())
    for day, version in enumerate((alice1, carol1, alice2)):
        BotVersion.objects.filter(pk=version.pk).update(created=start + timedelta(days=day), status="valid")
    refresh_active(bot=alice1.bot)
    season = create_season(slug="winter", game="galaxy", name="Winter")
    close_season(season=season)  # enters alice's v2 and carol's v1
    return season, alice1, carol1, alice2


def test_the_original_is_the_bot_that_had_the_code_first_and_a_confirmed_finding_stays_put(winter, make_user):
    """An organiser's trial: a season entered alice's v2 (uploaded after carol copied her v1) and carol's
    copy; once carol's entry was disqualified, running the checks again re-pointed the confirmed finding
    at alice ("alice's alicebot v2 shares 100% ... with carol's carolbot v1, uploaded 2 min earlier") and
    offered to disqualify her. The original is the bot whose code matched first, and staff's
    confirmation keeps the versions it was given for."""
    from armada_web.integrity import actions
    from armada_web.integrity.copies import find_copies

    season, alice1, carol1, alice2 = winter
    [found] = find_copies(season=season)  # carol's v1 compared with every version: alice's v1 matches best
    assert found.subjects == [alice1.pk, carol1.pk] and found.evidence["first"] == alice1.pk
    assert found.reason.startswith("carol's carolbot v1 shares")
    assert "alice's alicebot v1, uploaded 24 h earlier" in found.reason
    judge = make_user("judge", is_staff=True)
    actions.set_status(finding_id=found.pk, status="confirmed", by=judge, note="a copy")
    actions.disqualify(season=season, by=judge, reason="copied alicebot", version_id=carol1.pk, finding_id=found.pk)
    [again] = find_copies(season=season)  # carol's entry is gone: only alice's v2 is compared now
    assert (again.pk, again.subjects, again.reason, again.status) == (found.pk, found.subjects, found.reason,
                                                                      "confirmed")
    actions.set_status(finding_id=found.pk, status="open", by=judge)
    [reopened] = find_copies(season=season)  # open again, it is recomputed from alice's v2: still carol's copy
    assert reopened.subjects == [alice2.pk, carol1.pk] and reopened.evidence["first"] == alice2.pk
    assert reopened.reason.startswith("carol's carolbot v1 shares") and "with alice's alicebot v2" in reopened.reason
    assert "alicebot had that code 24 h earlier (its v1; carolbot's first such version is v1)" in reopened.reason
    assert [v["id"] for v in reopened.evidence["first_matches"]] == [alice1.pk, carol1.pk]


def test_disqualifying_from_a_finding_takes_the_entry_and_confirms_the_finding(winter, make_user, client):
    """An organiser's trial: the report offered "alicebot v1 (version 1): no entry in this season" though
    alicebot was entered with v2, and a disqualification made from an open finding left it open."""
    from armada_web.integrity import actions
    from armada_web.integrity.copies import find_copies
    from armada_web.integrity.models import AuditEntry

    season, _alice1, carol1, alice2 = winter
    [found] = find_copies(season=season)
    judge = make_user("judge", is_staff=True)
    client.force_login(judge)
    html = client.get(f"/staff/integrity/?season={season.slug}").content.decode()
    assert f"Disqualify alicebot v2 (version id {alice2.pk}, its entry)" in html
    assert "no entry in this season" not in html
    assert f"Disqualify carolbot v1 (version id {carol1.pk})" in html
    actions.disqualify(season=season, by=judge, reason="copied alicebot", version_id=carol1.pk, finding_id=found.pk)
    found.refresh_from_db()
    assert found.status == "confirmed"
    confirmed = AuditEntry.objects.get(finding=found, action="confirmed")
    assert confirmed.by_name == "judge" and confirmed.note == "by disqualifying carolbot v1: copied alicebot"
    page = client.get(f"/seasons/{season.slug}/").content.decode()  # the count says what left (a trial)
    assert "1 frozen entry<span id=\"entries-withdrawn\"> (1 more left by disqualification since the close)" in page
