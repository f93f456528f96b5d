"""Uploads refuse what cannot be unpacked (issue 20): every name the check accepts unpacks on the
workers' file system, so a version ends `error` only for the platform's faults.

Each case below passed the upload check before and then failed when a worker unpacked it (three
platform failures, `error`); now the check refuses it with its own message (SDK `check_zip`,
which the CLI uses too). A property-based test draws archives of arbitrary names and asserts
that whatever the check accepts unpacks, file for file, on this machine's real file system.
"""

from __future__ import annotations

import hashlib
import io
import unicodedata
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from armada.botspec import BotSpecError, extract_zip
from armada_web.storage.archives import UploadError, check_upload, unpack

MAIN = b"print('hello')\n"
#: The cases write duplicate names on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")


def zipped(entries: list[tuple[str, bytes | None]]) -> bytes:
    """A zip of (name, data) in this order; data None makes a folder entry. Names are written as given."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries:
            if data is None:
                archive.writestr(zipfile.ZipInfo(name.rstrip("/") + "/"), b"")
            else:
                archive.writestr(zipfile.ZipInfo(name), data)
    return buffer.getvalue()


def bad_utf8_name() -> bytes:
    """A member whose name is flagged UTF-8 but is not (zipfile raises UnicodeDecodeError opening it)."""
    data = bytearray(zipped([("main.py", MAIN), ("abcd.py", b"x = 1\n")]))
    for header in (b"PK\x03\x04", b"PK\x01\x02"):
        start = 0
        while (at := data.find(header, start)) != -1:
            flags = 6 if header == b"PK\x03\x04" else 8
            data[at + flags + 1] |= 0x08  # bit 11: the name is UTF-8
            start = at + 4
    return bytes(data.replace(b"abcd.py", b"ab\xff\xfe.py"))


NFC = unicodedata.normalize("NFC", "café.py")
NFD = unicodedata.normalize("NFD", "café.py")
CASES = {
    "a file and a folder of the same name": ([("main.py", MAIN), ("lib", b"x"), ("lib/util.py", b"y = 1\n")],
                                             "both as a file and as a folder"),
    "a file where a folder entry is": ([("main.py", MAIN), ("data/", None), ("data", b"x")],
                                       "both as a file and as a folder"),
    "a name part of 300 characters": ([("main.py", MAIN), ("x" * 297 + ".py", b"y = 1\n")],
                                      "name part of 300 bytes"),
    "a name of 130 two-byte letters (260 bytes)": ([("main.py", MAIN), ("é" * 130, b"y")], "name part of 260 bytes"),
    "a path of more than 1024 bytes": ([("main.py", MAIN), ("/".join(["d" * 200] * 6) + "/x.py", b"y")],
                                       "has a path of"),
    "case twins": ([("main.py", MAIN), ("Util.py", b"a = 1\n"), ("util.py", b"a = 2\n")], "differ only in"),
    "case twins of folders": ([("main.py", MAIN), ("Lib/a.py", b"a = 1\n"), ("lib/b.py", b"b = 2\n")],
                              "differ only in"),
    "Unicode twins (NFC and NFD)": ([("main.py", MAIN), (NFC, b"a = 1\n"), (NFD, b"a = 2\n")], "differ only in"),
    "main.py twice": ([("main.py", MAIN), ("main.py", b"print(2)\n")], "twice"),
    "a control character": ([("main.py", MAIN), ("bad\nname.py", b"y")], "control character"),
    # a security review stored these: a C1 control (an escape to a terminal), a direction override
    # (reads as gpj.txt.exe), a zero-width space, a C1 next line
    "a C1 control character": ([("main.py", MAIN), ("a\u009b31mb.txt", b"y")], r"control character .*U\+009B"),
    "a direction override": ([("main.py", MAIN), ("gpj.\u202eexe.txt", b"y")], r"U\+202E"),
    "a zero-width space": ([("main.py", MAIN), ("zw\u200b.txt", b"y")], r"U\+200B"),
    "a C1 next line": ([("main.py", MAIN), ("a\u0085b.txt", b"y")], r"U\+0085"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_check_refuses_what_would_not_unpack(case):
    entries, message = CASES[case]
    with pytest.raises(UploadError, match=message):
        check_upload(name="bot.zip", data=zipped(entries))


def test_a_name_flagged_utf8_that_is_not_is_refused_not_a_server_error():
    with pytest.raises(UploadError, match="cannot read the zip"):
        check_upload(name="bot.zip", data=bad_utf8_name())


@pytest.mark.parametrize("case", ["a file and a folder of the same name", "a name part of 300 characters"])
def test_the_case_of_the_issue_unpacks_nowhere(case, tmp_path):
    """What the issue saw: the raw archive fails to unpack on this file system (so the check must refuse it)."""
    entries, _message = CASES[case]
    with zipfile.ZipFile(io.BytesIO(zipped(entries))) as archive, pytest.raises(OSError):
        archive.extractall(tmp_path)


@pytest.mark.django_db
@pytest.mark.parametrize("case", ["a file and a folder of the same name", "a name part of 300 characters",
                                  "case twins"])
def test_the_api_answers_400_with_the_reason_and_stores_nothing(case, make_user, api):
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import create_bot

    owner = make_user()
    bot = create_bot(user=owner, name="names", game="galaxy")
    entries, message = CASES[case]
    response = api(owner).post(f"/api/bots/{bot.pk}/versions/",
                               {"file": SimpleUploadedFile("bot.zip", zipped(entries))}, format="multipart")
    assert response.status_code == 400 and message in response.json()["detail"]
    assert not BotVersion.objects.exists()


def test_the_cli_refuses_the_same_zips(tmp_path):
    """The SDK's extract_zip (armada play bot.zip) uses the same check."""
    path = tmp_path / "bot.zip"
    path.write_bytes(zipped(CASES["case twins"][0]))
    with pytest.raises(BotSpecError, match="differ only in"):
        extract_zip(path)


@pytest.mark.django_db
def test_a_stored_archive_that_does_not_unpack_makes_the_version_invalid_not_error(make_user, monkeypatch):
    """An archive stored before the check refused such names: the validation says why, at once
    (`invalid`, attempt 1), instead of three platform failures and `error`."""
    from armada_web.bots import storage, validation
    from armada_web.bots.models import BotVersion, VersionStatus
    from armada_web.bots.services import create_bot
    from armada_web.games import runner
    from armada_web.jobs import leases

    monkeypatch.setattr(runner._Sandbox, "ready", True)  # the archive fails before any container starts
    bot = create_bot(user=make_user(), name="old-archive", game="galaxy")
    raw = zipped(CASES["a file and a folder of the same name"][0])
    version = BotVersion(bot=bot, number=1, sha256=hashlib.sha256(raw).hexdigest(), size=len(raw), files=3,
                         status=VersionStatus.PENDING)
    version.archive.name = storage.save_archive(version, raw)
    version.save()
    lease = leases.claim(kind=validation.VALIDATION, job_id=version.pk)
    assert lease is not None
    assert validation.run(lease) == VersionStatus.INVALID
    version.refresh_from_db()
    assert version.status == VersionStatus.INVALID and version.attempts == 1
    assert "cannot be unpacked" in version.detail and "both as a file and as a folder" in version.detail


def test_names_refused_at_upload_since_still_unpack_when_stored_before(tmp_path):
    """A review: the stricter name rule (no direction marks, zero-width spaces, C1 controls) was
    applied to stored archives too, so a version stored before with such a name no longer unpacked
    and every one of its matches was void. Stored archives keep the rule they were accepted under;
    the joiners of Persian words and emoji sequences are accepted at upload too."""
    stored_before = zipped([("main.py", MAIN), ("zw\u200b.txt", b"y"), ("a\u0085b.txt", b"z")])
    with pytest.raises(UploadError, match="U\\+200B"):
        check_upload(name="bot.zip", data=stored_before)
    assert unpack(archive=stored_before, dest=str(tmp_path / "old")) > 0
    assert (tmp_path / "old" / "zw\u200b.txt").read_bytes() == b"y"
    joined = zipped([("main.py", MAIN), ("lib/\u0646\u06cc\u0645\u200c\u0641\u0627\u0635\u0644\u0647.py", b"x = 1\n"),
                     ("\U0001f469\u200d\U0001f4bb.txt", b"coder")])
    check_upload(name="bot.zip", data=joined)  # accepted


# -- whatever the check accepts unpacks ----------------------------------------------------------

#: Name parts: short and long, any case, letters with accents (composed or not), dots, spaces.
PART = st.one_of(
    st.sampled_from(["lib", "Lib", "LIB", "util.py", "Util.py", "a", "A", "data", NFC, NFD, "x" * 255, "é" * 128,
                     ".hidden", "sp ace", "main.py"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=40),
)
ENTRY = st.tuples(st.lists(PART, min_size=1, max_size=4).map("/".join), st.one_of(st.none(), st.binary(max_size=20)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(ENTRY, max_size=8))
def test_every_archive_the_check_accepts_unpacks_file_for_file(entries, tmp_path_factory):
    data = zipped([("main.py", MAIN), *entries])
    try:
        bundle = check_upload(name="bot.zip", data=data)
    except UploadError:
        return
    dest = tmp_path_factory.mktemp("unpacked")
    unpack(archive=bundle.archive, dest=str(dest))
    with zipfile.ZipFile(io.BytesIO(bundle.archive)) as stored:
        for info in stored.infolist():
            assert (Path(dest) / info.filename).read_bytes() == stored.read(info)
    written = [p for p in Path(dest).rglob("*") if p.is_file()]
    assert len(written) == bundle.files
