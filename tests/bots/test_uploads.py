"""Every upload refusal of the site (page and API alike), accepted forms, normalised archives."""

from __future__ import annotations

import io
import random
import stat
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from armada_web.storage.archives import UploadError, check_upload

pytestmark = pytest.mark.django_db

MAIN = b"print('hello')\n"


def zipped(entries: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED, when=(2024, 5, 1, 12, 0, 0)) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=when)
            info.compress_type = compression
            archive.writestr(info, data)
    return buffer.getvalue()


def symlink_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", MAIN)
        info = zipfile.ZipInfo("link.py")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def encrypted_zip() -> bytes:
    data = bytearray(zipped({"main.py": MAIN}, compression=zipfile.ZIP_STORED))
    # Set the "encrypted" flag bit in the local header and the central directory entry.
    data[6] |= 0x1
    central = data.rfind(b"PK\x01\x02")
    data[central + 8] |= 0x1
    return bytes(data)


REFUSALS = {
    "empty": ("main.py", b"", "is empty"),
    "not a zip": ("bot.zip", b"this is not a zip at all", "not a valid zip"),
    "neither": ("bot.exe", b"MZ\x90\x00binary", "neither a zip nor a .py"),
    "absolute path": ("bot.zip", zipped({"/etc/main.py": MAIN}), "absolute path"),
    "dot-dot": ("bot.zip", zipped({"main.py": MAIN, "../../escape.py": MAIN}), "outside the archive"),
    "symlink": ("bot.zip", symlink_zip(), "symbolic link"),
    "encrypted": ("bot.zip", encrypted_zip(), "encrypted"),
    "zip bomb": ("bot.zip", zipped({"main.py": MAIN, "pad.txt": b"\0" * 5_000_000}), "zip bomb"),
    "too large": ("main.py", b"#" * (1024 * 1024 + 1), "too large"),
    # With the unpacked limit lowered to 300 kB (UNPACKED_LIMIT below): 400 kB of incompressible files.
    "too large unpacked": ("bot.zip", zipped({"main.py": MAIN, **{f"f{i}.bin": random.Random(i).randbytes(100_000)
                                                                     for i in range(4)}},
                                                compression=zipfile.ZIP_STORED), "too large when extracted"),
    "too many files": ("bot.zip", zipped({"main.py": MAIN, **{f"m{i}.py": b"x = 1\n" for i in range(200)}}),
                       "too many entries"),
    "no main.py": ("bot.zip", zipped({"bot.py": MAIN}), "no main.py"),
    "main.py not UTF-8": ("main.py", "print('é')\n".encode("latin-1"), "not UTF-8"),
    "module not UTF-8": ("bot.zip", zipped({"main.py": MAIN, "lib/util.py": b"x = '\xff'\n"}), "not UTF-8"),
}


UNPACKED_LIMIT = {"too large unpacked": 300_000}


@pytest.fixture
def limits(settings, request):
    """The site's limits, with the unpacked limit lowered for the case that needs it."""
    case = request.node.callspec.params["case"]
    settings.ARMADA = settings.ARMADA.with_(upload_max_bytes=1024 * 1024)
    settings.ARMADA = settings.ARMADA.with_(unpacked_max_bytes=UNPACKED_LIMIT.get(case, 10 * 1024 * 1024))


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusals_have_their_own_message(case, limits):
    name, data, message = REFUSALS[case]
    with pytest.raises(UploadError, match=message):
        check_upload(name=name, data=data)


def test_the_unpacked_size_refusal_names_the_largest_files_and_how_to_shrink(settings):
    """A competitor's trial: it said only `400015 bytes (limit 300000)`, no files and no advice, unlike a 413."""
    settings.ARMADA = settings.ARMADA.with_(unpacked_max_bytes=300_000)
    name, data, _message = REFUSALS["too large unpacked"]
    with pytest.raises(UploadError) as refused:
        check_upload(name=name, data=data)
    assert str(refused.value) == (
        "zip too large when extracted: 400015 bytes (391 KiB), over the limit of 300000 bytes (293 KiB); its largest "
        "files: f0.bin (98 KiB), f1.bin (98 KiB), f2.bin (98 KiB): shrink it: export the model to ONNX, quantise its "
        "weights (float16 or int8), leave training data out (see /docs/bots-environment/#model-files)")


def test_a_module_that_is_not_utf8_is_named_by_its_path_in_the_zip():
    """A documentation audit: `lib/x.py` (docs/site.md's words) was told as `x.py`, which does not say
    which of two `x.py` files is meant."""
    data = zipped({"main.py": MAIN, "lib/x.py": b"x = 1\n", "x.py": b"y = '\xff'\n"})
    with pytest.raises(UploadError, match=r"^x\.py is not UTF-8 text \(byte 5\)"):
        check_upload(name="bot.zip", data=data)
    data = zipped({"main.py": MAIN, "lib/x.py": b"x = '\xff'\n", "x.py": b"y = 1\n"})
    with pytest.raises(UploadError, match=r"^lib/x\.py is not UTF-8 text \(byte 5\); save it as UTF-8$"):
        check_upload(name="bot.zip", data=data)
    data = zipped({"mybot/main.py": MAIN, "mybot/lib/x.py": b"\x00"})  # relative to main.py's folder
    with pytest.raises(UploadError, match=r"^lib/x\.py is not text \(it holds NUL bytes\)$"):
        check_upload(name="bot.zip", data=data)
    with pytest.raises(UploadError, match=r"^main\.py is not UTF-8 text"):  # a .py upload: its file name
        check_upload(name="C:\\Users\\me\\main.py", data=b"x = '\xff'\n")


@pytest.fixture
def bot(make_user):
    from armada_web.bots.services import create_bot

    owner = make_user()
    return create_bot(user=owner, name="uploader", game="galaxy")


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusals_through_the_api_are_400_with_detail_and_store_nothing(case, limits, bot, api, tmp_path):
    from armada_web.bots.models import BotVersion

    name, data, message = REFUSALS[case]
    client = api(bot.owner)
    response = client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile(name, data)},
                           format="multipart")
    assert response.status_code == 400, response.content
    body = response.json()
    assert list(body) == ["detail"] and message.lower() in body["detail"].lower()
    assert not BotVersion.objects.exists()
    assert not list((tmp_path / "private").rglob("*.zip")) if (tmp_path / "private").exists() else True


def test_an_upload_is_one_file_field_given_once(bot, api):
    """An API-only trial: a second part (file2) was dropped silently, and of two parts named file the
    last one was kept; JSON bodies and query strings already refuse such input."""
    from armada_web.bots.models import BotVersion

    client = api(bot.owner)
    url = f"/api/bots/{bot.pk}/versions/"
    extra = client.post(url, {"file": SimpleUploadedFile("main.py", b"x = 1\n"),
                              "file2": SimpleUploadedFile("a.py", b"y = 2\n")}, format="multipart")
    assert extra.status_code == 400
    assert extra.json()["detail"] == 'send one multipart form field, "file", once; also sent: file2'
    twice = client.post(url, {"file": [SimpleUploadedFile("main.py", b"x = 1\n"),
                                       SimpleUploadedFile("main.py", b"y = 2\n")]}, format="multipart")
    assert twice.status_code == 400 and twice.json()["detail"] == 'send one multipart form field, "file", once'
    # a chaos trial: a part named file with an empty (or not UTF-8) file name was told to name it "file"
    boundary = "XyZ"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename=""\r\n'
            f"Content-Type: text/x-python\r\n\r\nx = 1\r\n--{boundary}--\r\n")
    nameless = client.generic("POST", url, body, content_type=f"multipart/form-data; boundary={boundary}")
    assert nameless.status_code == 400 and 'the form field "file" came without a file' in nameless.json()["detail"]
    assert not BotVersion.objects.exists()
    assert client.post(url, {"file": SimpleUploadedFile("main.py", b"x = 1\n")}, format="multipart").status_code == 201


def test_a_json_key_given_twice_is_refused(api):
    client = api()
    answer = client.post("/api/bots/", data=b'{"name": "a-bot", "name": "b-bot", "game": "galaxy"}',
                         content_type="application/json")
    assert answer.status_code == 400
    assert answer.json() == {"detail": "give each field of a JSON object once; repeated: name"}
    nested = client.post("/api/challenges/", data=b'{"bot": 1, "x": {"a": 1, "a": 2}}', content_type="application/json")
    assert nested.status_code == 400 and "repeated: a" in nested.json()["detail"]


@pytest.mark.parametrize("case", ["zip bomb", "dot-dot", "symlink", "not a zip"])
def test_refusals_through_the_page_show_the_message(case, bot, client):
    from armada_web.bots.models import BotVersion

    name, data, message = REFUSALS[case]
    client.force_login(bot.owner)
    response = client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile(name, data)})
    assert response.status_code == 400
    assert message.lower() in response.content.decode().lower()
    assert not BotVersion.objects.exists()


def test_accepted_forms_store_main_py_at_the_top(bot, api):
    from armada_web.bots import storage
    from armada_web.bots.models import BotVersion

    client = api(bot.owner)
    forms = [("whatever.py", MAIN), ("top.zip", zipped({"main.py": MAIN + b"#1\n", "lib/a.py": b"a = 1\n"})),
             ("folder.zip", zipped({"mybot/main.py": MAIN + b"#2\n", "mybot/data.txt": b"x",
                                    "__MACOSX/._main.py": b"junk"}))]
    for name, data in forms:
        response = client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile(name, data)},
                               format="multipart")
        assert response.status_code == 201, response.content
    stored = [zipfile.ZipFile(io.BytesIO(storage.read_archive(v))).namelist()
              for v in BotVersion.objects.order_by("number")]
    assert stored == [["main.py"], ["lib/a.py", "main.py"], ["data.txt", "main.py"]]
    assert [v.number for v in BotVersion.objects.order_by("number")] == [1, 2, 3]


def test_same_files_whatever_the_timestamps_are_a_duplicate(bot, api):
    client = api(bot.owner)
    first = zipped({"main.py": MAIN, "b.py": b"b = 2\n"}, when=(2020, 1, 1, 0, 0, 0))
    again = zipped({"b.py": b"b = 2\n", "main.py": MAIN}, when=(2025, 6, 6, 6, 6, 6), compression=zipfile.ZIP_STORED)
    assert check_upload(name="a.zip", data=first).sha256 == check_upload(name="b.zip", data=again).sha256
    assert client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("a.zip", first)},
                       format="multipart").status_code == 201
    response = client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("b.zip", again)},
                           format="multipart")
    assert response.status_code == 400
    assert "same code as version 1" in response.json()["detail"]
    changed = zipped({"main.py": MAIN + b"# v2\n", "b.py": b"b = 2\n"})
    assert client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("c.zip", changed)},
                       format="multipart").status_code == 201
    # the platform failed the newest version's validation (`error`): the same code again is a new try, as
    # its page says (an organiser's trial was refused as "the same code")
    from armada_web.bots.models import BotVersion

    BotVersion.objects.filter(bot=bot, number=2).update(status="error")
    retry = client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("c.zip", changed)},
                        format="multipart")
    assert retry.status_code == 201 and retry.json()["number"] == 3


def test_upload_limits_per_hour_and_bots_per_game(bot, api, settings):
    from armada_web.bots.services import create_bot
    from armada_web.web.errors import Conflict

    settings.ARMADA = settings.ARMADA.with_(uploads_per_hour=2)
    client = api(bot.owner)
    for i in range(2):
        response = client.post(f"/api/bots/{bot.pk}/versions/",
                               {"file": SimpleUploadedFile("main.py", MAIN + f"#{i}\n".encode())}, format="multipart")
        assert response.status_code == 201
    response = client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("main.py", b"#3\n")},
                           format="multipart")
    assert response.status_code == 429
    assert "2 uploads per hour" in response.json()["detail"]

    settings.ARMADA = settings.ARMADA.with_(max_bots_per_game=2)
    create_bot(user=bot.owner, name="second", game="galaxy")
    with pytest.raises(Conflict, match="the limit is 2"):  # a limit of objects held: 409
        create_bot(user=bot.owner, name="third", game="galaxy")
    create_bot(user=bot.owner, name="other-game", game="mothership")  # the limit is per game


@pytest.mark.parametrize(("name", "message"), [
    ("ab", "3 to 40"), ("x" * 41, "3 to 40"), ("bad name", "only ASCII letters (a-z, A-Z)"),
    ("<script>", "only ASCII letters (a-z, A-Z)"), ("émile", "only ASCII letters (a-z, A-Z)"),
    ("012", "a bot name of digits alone reads as a bot's id (in `armada challenge 012`"),  # (a trial)
])
def test_bad_bot_names(name, message, api):
    client = api()
    response = client.post("/api/bots/", {"name": name, "game": "galaxy"}, format="json")
    assert response.status_code == 400
    assert message in response.json()["detail"]


def test_names_are_unique_per_game_whatever_the_case(api, make_user):
    first, second = api(make_user("ann")), api(make_user("ben"))
    assert first.post("/api/bots/", {"name": "Rocket", "game": "galaxy"}, format="json").status_code == 201
    response = second.post("/api/bots/", {"name": "rocket", "game": "galaxy"}, format="json")
    assert response.status_code == 409 and "taken" in response.json()["detail"]  # a state: 409
    assert second.post("/api/bots/", {"name": "rocket", "game": "mothership"}, format="json").status_code == 201


def test_a_huge_request_is_refused_before_it_is_read(bot, api, client, settings):
    settings.ARMADA = settings.ARMADA.with_(upload_max_bytes=1000)
    data = b"#" * 200_000
    response = api(bot.owner).post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("main.py", data)},
                                   format="multipart")
    assert response.status_code == 413
    assert "upload too large" in response.json()["detail"]
    client.force_login(bot.owner)
    page = client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("main.py", data)})
    assert page.status_code == 413 and "upload too large" in page.content.decode()


def test_a_retired_bot_has_no_upload_page(bot, client):
    from armada_web.bots.services import retire_bot

    retire_bot(bot=bot, user=bot.owner)
    client.force_login(bot.owner)
    response = client.get(f"/bots/{bot.pk}/upload/", follow=True)
    assert response.redirect_chain[-1][0] == f"/bots/{bot.pk}/"
    assert "is retired and takes no new versions" in response.content.decode()


def test_a_zip_whose_armada_json_names_another_game_is_refused_before_it_is_stored(bot, api, client):
    """An audit of bad input: a mothership bot's zip (armada.json from `armada new`) uploaded to a galaxy
    bot was taken, and its version failed validation as "crashed: exited with code 2", the cause only in
    its log; `armada submit` refuses it. The site now refuses it too, on the API and the page alike."""
    from armada_web.bots.models import BotVersion

    other = zipped({"race/main.py": MAIN, "race/armada.json": b'{"game": "mothership", "starter": "greedy"}'})
    refused = api(bot.owner).post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("race.zip", other)},
                                  format="multipart")
    assert refused.status_code == 400, refused.content
    assert refused.json()["detail"] == (
        "its armada.json says it is a mothership bot, but this bot plays galaxy: its code would fail the "
        "validation game; upload it to a mothership bot (or correct armada.json if it plays galaxy)")
    client.force_login(bot.owner)
    page = client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("race.zip", other)})
    assert page.status_code == 400 and "says it is a mothership bot" in page.content.decode()
    assert not BotVersion.objects.exists()
    # its own game, a file that names no known game or is no JSON object: the validation game judges
    for info in (b'{"game": "galaxy"}', b'{"game": "chess"}', b"[1, 2]", b"not json", b"\xff\xfe"):
        check_upload(name="bot.zip", data=zipped({"main.py": MAIN, "armada.json": info}), game="galaxy").close()
    with pytest.raises(UploadError, match="says it is a galaxy bot, but this bot plays mothership"):
        check_upload(name="bot.zip", data=zipped({"main.py": MAIN, "armada.json": b'{"game": "galaxy"}'}),
                     game="mothership")


def test_an_armada_json_nested_past_the_parsers_depth_is_not_judged(bot, api):
    """A review of the game check: an armada.json of `[[[...` (a stored zip, so within the ratio limit)
    made json.loads raise RecursionError, neither ValueError nor BadZipFile: the upload answered 500.
    Like any file that is no JSON object, it is the validation game's to judge."""
    deep = zipped({"main.py": MAIN, "armada.json": b"[" * 60000}, compression=zipfile.ZIP_STORED)
    check_upload(name="bot.zip", data=deep, game="galaxy").close()
    made = api(bot.owner).post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("deep.zip", deep)},
                               format="multipart")
    assert made.status_code == 201, made.content
