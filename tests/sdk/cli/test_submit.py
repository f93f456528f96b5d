"""`armada submit` against a fake site: what it sends, how it waits, every exit status; folder zipping."""

from __future__ import annotations

import io
import json
import os
import socket
import time
import zipfile
from pathlib import Path

import pytest

from armada.botspec import starters_dir
from armada.cli import botinfo, client, config, polling
from armada.cli.common import CliError
from armada.cli.main import main
from armada.cli.packing import bot_upload, zip_folder
from tests.sdk.cli.bots import IDLE_GALAXY, write_bot
from tests.sdk.cli.fake_site import TOKEN, FakeSite


@pytest.fixture
def logged_in(site: FakeSite, home: Path) -> FakeSite:
    """The fake site, with its token stored as `armada login` would."""
    config.save_credentials(config.Credentials(site.url, TOKEN, "alice"))
    return site


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    folder = write_bot(tmp_path / "mybot", IDLE_GALAXY)
    (folder / "helper.py").write_text("X = 1\n")
    (folder / "pkg").mkdir()
    (folder / "pkg" / "mod.py").write_text("Y = 2\n")
    return folder


def _submit(*extra: str, path: str | None = None, bot: str = "mybot") -> int:
    return main(["submit", path or "builtin:random", "--game", "galaxy", "--bot", bot, *extra])


# --- folder zipping -------------------------------------------------------------------------


def test_folder_zip_layout_and_skipped_files(bot_dir: Path) -> None:
    for junk in ("__pycache__/main.cpython-311.pyc", ".git/config", ".hidden/x.py", "pkg/__pycache__/m.pyc",
                 "old.pyc", ".env", "pkg/.DS_Store"):
        (bot_dir / junk).parent.mkdir(parents=True, exist_ok=True)
        (bot_dir / junk).write_text("junk")
    data = zip_folder(bot_dir)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == ["helper.py", "main.py", "pkg/mod.py"]
        assert archive.read("main.py").decode() == IDLE_GALAXY.lstrip()
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.external_attr >> 16 for i in archive.infolist()} == {0o100644}
    os.utime(bot_dir / "main.py", (0, 0))
    assert zip_folder(bot_dir) == data  # same code, same bytes


def test_a_downloaded_dataset_in_the_bot_folder_is_noted(bot_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Replays downloaded into the bot's folder would be sent as part of every version: said, not refused."""
    zip_folder(bot_dir)
    assert capsys.readouterr().err == ""
    (bot_dir / "replays").mkdir()
    (bot_dir / "replays" / "manifest.jsonl").write_text('{"match": 7}\n')
    (bot_dir / "replays" / "7.json.gz").write_bytes(b"x" * 1000)
    (bot_dir / "book.json.gz").write_bytes(b"y" * 10)  # a bot's own data file is nothing to note
    with zipfile.ZipFile(io.BytesIO(zip_folder(bot_dir))) as archive:
        assert "replays/7.json.gz" in archive.namelist()
    assert capsys.readouterr().err == (f"armada: note: {bot_dir / 'replays'} holds a downloaded dataset (2 files, "
                                       "1,013 bytes), part of the upload; keep replays outside the bot's folder\n")
    (bot_dir / "replays" / "manifest.jsonl").rename(bot_dir / "manifest.jsonl")  # downloaded into the bot's folder
    (bot_dir / "replays" / "7.json.gz").rename(bot_dir / "7.json.gz")
    zip_folder(bot_dir)
    assert capsys.readouterr().err == (f"armada: note: {bot_dir} holds a downloaded dataset (2 files, 1,013 bytes), "
                                       "part of the upload; keep replays outside the bot's folder\n")


@pytest.mark.parametrize("link", ["file", "folder"])
def test_symlinks_are_refused(bot_dir: Path, link: str, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = bot_dir / ("helper.py" if link == "file" else "pkg")
    (bot_dir / "link").symlink_to(target)
    with pytest.raises(CliError, match=r"link: is a symbolic link; the site refuses links in a bot"):
        zip_folder(bot_dir)
    assert _submit(path=str(bot_dir)) == 2
    assert "is a symbolic link" in capsys.readouterr().err


def test_folder_without_main_py(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert _submit(path=str(tmp_path / "empty")) == 2
    assert capsys.readouterr().err == f"armada: error: {tmp_path / 'empty'}: folder has no main.py\n"


def test_upload_forms(bot_dir: Path, tmp_path: Path) -> None:
    upload = bot_upload(str(bot_dir / "main.py"), "galaxy")
    assert (upload.filename, upload.data) == ("main.py", (bot_dir / "main.py").read_bytes())
    starter = bot_upload("builtin:greedy", "galaxy")
    assert (starter.filename, starter.data) == ("main.py", (starters_dir("galaxy") / "greedy.py").read_bytes())
    folder = bot_upload(str(bot_dir), "galaxy")
    assert folder.filename == "mybot.zip" and folder.content_type == "application/zip"
    (tmp_path / "b.zip").write_bytes(folder.data)
    assert bot_upload(str(tmp_path / "b.zip"), "galaxy").data == folder.data
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(CliError, match="not a valid zip file"):
        bot_upload(str(tmp_path / "bad.zip"), "galaxy")


# --- the conversation with the site ---------------------------------------------------------


def test_submit_creates_the_bot_uploads_and_waits(logged_in: FakeSite, bot_dir: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    site = logged_in
    assert _submit("--description", "my first bot", path=str(bot_dir)) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "created bot mybot (galaxy)",
        f"uploaded mybot.zip ({len(zip_folder(bot_dir))} bytes): mybot version 1",
        "mybot version 1: valid",
        f"url: {site.url}/bots/1/versions/1/",
    ]
    # Not a terminal: one plain line per status.
    assert captured.err.splitlines() == ["armada: version 1: pending", "armada: version 1: validating",
                                         "armada: version 1: valid"]
    assert site.paths()[:6] == ["GET /api/version/", "GET /api/me/", "GET /api/bots/", "GET /api/bots/",
                                "POST /api/bots/", "POST /api/bots/1/versions/"]
    assert set(site.paths()[6:]) == {"GET /api/versions/100/"}
    assert [seen.query for seen in site.seen("GET", "/api/bots/")] == [
        {"game": ["galaxy"], "name": ["mybot"]}, {"owner": ["alice"], "name": ["mybot"]}]  # (yours, any game)
    assert site.seen("POST", "/api/bots/")[0].json() == {"name": "mybot", "game": "galaxy",
                                                         "description": "my first bot"}
    for request in site.requests[1:]:
        assert request.headers["Authorization"] == f"Token {TOKEN}"
    upload = site.seen("POST", "/api/bots/1/versions/")[0]
    assert upload.headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert upload.multipart() == {"file": ("mybot.zip", zip_folder(bot_dir))}


def test_a_folders_upload_with_bot_is_remembered_for_the_next_submit(
        logged_in: FakeSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A learner's trial: `armada submit learner --bot ann-learner` as imitation.md says, then after
    retraining `armada submit learner`: a second bot named learner was made, and played ranked games
    beside the first. The folder's armada.json (from `armada new`) now remembers the name."""
    from armada.cli import botinfo

    site = logged_in
    folder = write_bot(tmp_path / "learner", IDLE_GALAXY)
    botinfo.record(folder, "galaxy", "imitation")
    assert main(["submit", str(folder), "--bot", "ann-learner"]) == 0
    assert "armada.json remembers the bot's name ann-learner" in capsys.readouterr().err
    assert json.loads((folder / "armada.json").read_text()) == {"game": "galaxy", "starter": "imitation",
                                                                "bot": "ann-learner"}
    site.bots = [{"id": 1, "name": "ann-learner", "game": "galaxy", "owner": "alice", "retired": False}]
    assert main(["submit", str(folder)]) == 0
    said = capsys.readouterr()
    assert f"bot name ann-learner (from {folder / 'armada.json'})" in said.err and "remembers" not in said.err
    assert len(site.seen("POST", "/api/bots/1/versions/")) == 2 and "created bot" not in said.out
    uploads = [seen.multipart()["file"][1] for seen in site.seen("POST", "/api/bots/1/versions/")]
    assert uploads[0] == uploads[1]  # the remembered name is not sent: unchanged code is the same upload
    assert main(["submit", str(folder), "--bot", "ann-other"]) == 0  # another name: remembered instead
    assert json.loads((folder / "armada.json").read_text())["bot"] == "ann-other"
    plain = write_bot(tmp_path / "plain", IDLE_GALAXY)  # no armada.json: nothing is written
    assert main(["submit", str(plain), "--game", "galaxy", "--bot", "plain-bot"]) == 0
    assert not (plain / "armada.json").exists()


def test_a_remembered_name_holds_for_the_folders_main_py_too(
        logged_in: FakeSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A review: `armada submit learner --bot ann-learner`, then `armada submit learner/main.py` (the
    form cli.md gives, whose game comes from the same armada.json) went to a new bot named learner,
    the trial's second bot; and --bot with the main.py wrote nothing for the folder's next submit."""
    from armada.cli import botinfo

    site = logged_in
    folder = write_bot(tmp_path / "learner", IDLE_GALAXY)
    botinfo.record(folder, "galaxy", "imitation")
    assert main(["submit", str(folder), "--bot", "ann-learner"]) == 0
    capsys.readouterr()
    site.bots = [{"id": 1, "name": "ann-learner", "game": "galaxy", "owner": "alice", "retired": False}]
    assert main(["submit", str(folder / "main.py")]) == 0
    said = capsys.readouterr()
    assert f"bot name ann-learner (from {folder / 'armada.json'})" in said.err and "created bot" not in said.out
    assert len(site.seen("POST", "/api/bots/1/versions/")) == 2
    assert main(["submit", str(folder / "main.py"), "--bot", "ann-other"]) == 0  # written from the main.py too
    assert json.loads((folder / "armada.json").read_text())["bot"] == "ann-other"
    assert botinfo.default_name(str(folder)) == "ann-other"


def test_existing_bot_is_found_by_exact_name(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    site = logged_in
    site.page_size = 2
    site.bots = [{"id": i, "name": name, "game": "galaxy", "owner": "alice", "retired": False}
                 for i, name in enumerate(["mybot-2", "mybot_old", "xmybot", "mybot"], start=1)]
    assert _submit() == 0
    assert site.seen("POST", "/api/bots/") == []
    assert len(site.seen("GET", "/api/bots/")) == 2  # followed "next" to the second page
    assert site.seen("POST", "/api/bots/4/versions/")[0].multipart()["file"][0] == "main.py"
    assert "created bot" not in capsys.readouterr().out


def test_your_bots_name_in_another_game_makes_a_new_bot_and_says_so(logged_in: FakeSite,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A competitor's trial: `armada submit race --bot cdraw` from a Mothership folder, meaning the
    Galaxy bot cdraw, quietly made a second bot cdraw (names are per game)."""
    logged_in.bots = [{"id": 1, "name": "cdraw", "game": "galaxy", "owner": "alice", "retired": False},
                      {"id": 2, "name": "cdraw", "game": "galaxy", "owner": "bob", "retired": False}]
    assert main(["submit", "builtin:random", "--game", "mothership", "--bot", "CDRAW", "--no-wait"]) == 0
    captured = capsys.readouterr()
    assert "created bot CDRAW (mothership)" in captured.out
    assert ("armada: note: your bot CDRAW is a galaxy bot; this one is a mothership bot, so it is a new bot "
            "CDRAW (a name is per game)") in captured.err.splitlines()
    logged_in.bots = [b for b in logged_in.bots if b["owner"] == "bob"]  # someone else's is no note
    assert main(["submit", "builtin:random", "--game", "mothership", "--bot", "cdraw", "--no-wait"]) == 0
    captured = capsys.readouterr()
    assert "created bot cdraw (mothership)" in captured.out and "armada: note: your bot" not in captured.err


def test_a_failed_lookup_for_the_note_never_stops_the_upload(logged_in: FakeSite,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A review: the lookup behind the note above raised the site's 503, and the submit exited 3 with
    nothing uploaded. The note is left unsaid; a site that ignores the owner filter names nobody
    else's bot as yours."""
    logged_in.bots = [{"id": 1, "name": "cdraw", "game": "galaxy", "owner": "bob", "retired": False}]
    logged_in.forced[("GET", "/api/bots/")] = [None, (503, b'{"detail": "down"}', "application/json")]
    assert main(["submit", "builtin:random", "--game", "mothership", "--bot", "cdraw", "--no-wait"]) == 0
    captured = capsys.readouterr()
    assert "created bot cdraw (mothership)" in captured.out and "note" not in captured.err
    assert len(logged_in.seen("POST", "/api/bots/2/versions/")) == 1
    logged_in.bots = [{"id": 1, "name": "xdraw", "game": "galaxy", "owner": "bob", "retired": False}]
    logged_in.forced[("GET", "/api/bots/")] = [None, (200, json.dumps({"count": 1, "next": None, "previous": None,
                                                                       "results": logged_in.bots}).encode(),
                                                      "application/json")]
    assert main(["submit", "builtin:random", "--game", "mothership", "--bot", "xdraw", "--no-wait"]) == 0
    assert "note" not in capsys.readouterr().err  # the answer ignored ?owner=alice: bob's bot is not hers


def test_a_name_in_another_case_is_your_bot_not_a_new_one(logged_in: FakeSite,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A competitor's trial: with a bot `mybot`, `armada submit ... --bot MYBOT` tried to create a
    bot and the site said "the name 'MYBOT' is taken" (names are unique whatever the case), without
    saying it was their own bot."""
    logged_in.bots = [{"id": 1, "name": "mybot", "game": "galaxy", "owner": "alice", "retired": False}]
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "MYBOT", "--no-wait"]) == 0
    assert logged_in.seen("POST", "/api/bots/") == []
    assert logged_in.seen("POST", "/api/bots/1/versions/")
    assert "mybot version 1" in capsys.readouterr().out


def test_invalid_bot_shows_reason_and_log_tail(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    site = logged_in
    site.statuses = ["invalid"]
    site.detail = "the bot crashed before answering init (exit code 1)"
    site.log = ("".join(f"line {i}\n" for i in range(30)) + "[armada] --- request 0: init ---\n"
                "ZeroDivisionError: division by zero\n")  # the referee's marks are left out, as in armada play
    assert _submit() == 1
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "mybot version 1: invalid: the bot crashed before answering init (exit code 1)"
    assert out[3] == "bot log (last 20 lines):"
    assert out[4:24] == [f"    line {i}" for i in range(11, 30)] + ["    ZeroDivisionError: division by zero"]
    # A trial: nothing said the old version still plays (it does: an invalid one never replaces it).
    assert out[24] == "it will not play: the bot's active version, if it has one, plays on as before"
    assert out[25] == f"url: {site.url}/bots/1/versions/1/"


def test_what_the_validation_used_is_said_before_the_url(logged_in: FakeSite,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    site = logged_in
    site.resources = {"init_ms": 2382, "init_budget_ms": 30000, "memory_peak_mib": 398, "memory_limit_mib": 1024}
    assert _submit() == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["used: init 2382 ms of its 30000 ms budget, memory peak 398 MiB of its 1024 MiB limit",
                        f"url: {site.url}/bots/1/versions/1/"]
    site.statuses, site.resources = ["invalid"], {**site.resources, "init_ms": None, "memory_peak_mib": None}
    assert _submit() == 1
    assert ("used: init not answered (its budget: 30000 ms), memory peak not measured of its 1024 MiB limit"
            in capsys.readouterr().out.splitlines())


def test_a_valid_version_that_does_not_play_says_so(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    """An RL competitor's trial: with an earlier version pinned, `armada submit` said only "valid" and
    the new version never played; the version's page said why. The CLI says it too."""
    logged_in.active = False
    assert _submit(bot="mybot") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["not active: the bot plays another version (an earlier one pinned on its page, or a newer "
                        "valid one); make this one active on its page", f"url: {logged_in.url}/bots/1/versions/1/"]
    logged_in.active = True
    assert _submit(bot="mybot") == 0
    assert not any(line.startswith("not active") for line in capsys.readouterr().out.splitlines())


def test_a_version_that_does_not_play_names_the_one_that_does(logged_in: FakeSite,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A trial: "the bot plays another version" did not say which; the bot's API page does."""
    assert _submit(bot="mybot") == 0  # version 1
    logged_in.active, logged_in.plays = False, (77, 1, True)
    assert _submit(bot="mybot") == 0  # version 2, while 1 is pinned
    assert ("not active: the bot plays version 1, pinned on its page; make this one active on its page"
            in capsys.readouterr().out.splitlines())
    logged_in.plays = (78, 9, True)  # a newer one, made active by hand (pinned): newer says more
    assert _submit(bot="mybot") == 0
    assert ("not active: the bot plays version 9, a newer valid one pinned on its page; make this one active on its "
            "page"
            in capsys.readouterr().out.splitlines())
    logged_in.force("GET", "/api/bots/1/", 503, {"detail": "busy"})  # the site does not say: the general line
    assert _submit(bot="mybot") == 0
    assert any(line.startswith("not active: the bot plays another version (an earlier one pinned")
               for line in capsys.readouterr().out.splitlines())


def test_the_cli_docs_sample_of_a_crashed_validation_says_what_submit_prints() -> None:
    """cli.md's session shows a bot that crashed at import: its "used:" line is the one
    `armada submit` prints for an init never answered (it said "init unknown")."""
    from armada.cli.commands.submit import _used
    from armada.docs import text
    used = _used({"init_ms": None, "init_budget_ms": 30000, "memory_peak_mib": 4, "memory_limit_mib": 1024})
    doc = text("cli")
    assert f"used: {used}\n" in doc
    assert "init unknown" not in doc


def test_invalid_orders_say_invalid_once(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    """The site's detail starts with the protocol status (`invalid: ...` for Mothership orders that break
    MD-1/MD-2); the line says "invalid" once."""
    logged_in.statuses = ["invalid"]
    logged_in.detail = "invalid: fighters: 6 given, 5 expected (MD-1)"
    assert _submit() == 1
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "mybot version 1: invalid: fighters: 6 given, 5 expected (MD-1)"


def test_platform_error_exits_3(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.statuses = ["error"]
    logged_in.detail = "Docker engine unreachable after 3 attempts"
    assert _submit() == 3
    captured = capsys.readouterr()
    assert "mybot version 1: error: Docker engine unreachable after 3 attempts (a platform failure" in captured.out
    assert captured.err.splitlines()[-1] == ("armada: error: the site could not validate mybot version 1: Docker "
                                             "engine unreachable after 3 attempts; its retries are spent: submit "
                                             "it again (the same code is taken), or ask staff to validate it again")


def test_wait_times_out_with_exit_3(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.statuses = ["validating"]
    assert _submit("--timeout", "0.3") == 3
    captured = capsys.readouterr()
    assert "mybot version 1: still validating after 0.3 s" in captured.out
    assert captured.err.splitlines()[-1] == ("armada: error: gave up waiting after 0.3 s (status: validating); "
                                             f"the result will appear at {logged_in.url}/bots/1/versions/1/")


def test_no_wait(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert _submit("--no-wait") == 0
    assert capsys.readouterr().out.splitlines()[-2:] == ["mybot version 1: pending",
                                                         f"url: {logged_in.url}/bots/1/versions/1/"]
    assert logged_in.seen("GET", "/api/versions/100/") == []


def test_transient_failures_while_waiting_are_retried(logged_in: FakeSite) -> None:
    logged_in.forced[("GET", "/api/versions/100/")] = [(502, b"bad gateway", "text/plain")] * 2
    assert _submit() == 0


def test_lost_contact_while_waiting_keeps_the_url(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.forced[("GET", "/api/versions/100/")] = [(503, b"{}", "application/json")] * 10
    assert _submit() == 3
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"armada: error: uploaded as version 1 ({logged_in.url}/bots/1/versions/1/), "
                          "but while waiting: the server failed on GET /api/versions/100/ (HTTP 503)")


@pytest.mark.parametrize(("status", "body", "message"), [
    (400, {"detail": "This is the same code as version 3, the newest version."},
     "upload refused: This is the same code as version 3, the newest version. (HTTP 400)"),
    (413, b"<html>Request Entity Too Large</html>",
     "upload refused: POST /api/bots/1/versions/: HTTP 413 Request Entity Too Large (not JSON, so not from "
     "Armada's API: check the server address {url}, or a proxy in front of it)"),
    (429, {"detail": "Upload limit reached: 20 uploads per hour."},
     "upload refused: Upload limit reached: 20 uploads per hour. (HTTP 429)"),
])
def test_refused_uploads_exit_2(logged_in: FakeSite, capsys: pytest.CaptureFixture[str], status: int,
                                body: object, message: str) -> None:
    """The bot made for a refused first upload is deleted again: no empty bot keeps the name and a place."""
    logged_in.force("POST", "/api/bots/1/versions/", status, body)
    assert _submit() == 2
    assert capsys.readouterr().err == (f"armada: error: {message.format(url=logged_in.url)}; the bot mybot made "
                                       "for it was deleted again\n")
    assert logged_in.bots == [] and len(logged_in.seen("DELETE", "/api/bots/1/")) == 1
    assert logged_in.seen("DELETE", "/api/bots/1/")[0].query == {"if_empty": ["true"]}  # never one with a version


def test_a_bot_another_upload_reached_is_kept(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    """Two submits of one folder at once: the other run found the new bot and uploaded to it before
    this run's upload was refused; the site keeps a bot that has a version (409), and so it stays."""
    logged_in.versions[900] = {"id": 900, "bot": 1, "number": 1, "status": "pending"}  # the other run's upload
    logged_in.force("POST", "/api/bots/1/versions/", 400, {"detail": "This is the same code as version 1."})
    assert _submit() == 2
    assert capsys.readouterr().err.rstrip().endswith("the bot mybot made for it is kept: another upload reached it "
                                                     "meanwhile")
    assert [b["name"] for b in logged_in.bots] == ["mybot"]


@pytest.mark.parametrize("reached", [False, True])
def test_an_interrupted_first_upload_takes_back_its_empty_bot(logged_in: FakeSite, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str],
                                                              reached: bool) -> None:
    """An API trial: Ctrl-C after the last byte was sent left the new bot empty, holding its name and a
    place, with only "interrupted" said; or the upload was stored, and nothing said so."""
    send = client.ApiClient.request

    def interrupted(self: client.ApiClient, method: str, path: str, *args: object, **kwargs: object) -> object:
        if method == "POST" and path.endswith("/versions/"):
            if reached:  # the site stored it before the answer came back
                send(self, method, path, *args, **kwargs)  # type: ignore[arg-type]
            raise KeyboardInterrupt
        return send(self, method, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(client.ApiClient, "request", interrupted)
    assert _submit() == 130
    err = capsys.readouterr().err.splitlines()[-1]
    if reached:
        assert err == (f"armada: error: interrupted; the upload reached the site all the same: bot mybot has it "
                       f"(see its page, {logged_in.url}/bots/1/)")
        assert [b["name"] for b in logged_in.bots] == ["mybot"]
    else:
        assert err == "armada: error: interrupted; the upload did not reach the site, and bot mybot made for it was " \
                      "deleted again"
        assert logged_in.bots == []
    assert logged_in.seen("DELETE", "/api/bots/1/")[0].query == {"if_empty": ["true"]}


@pytest.mark.parametrize("reached", [False, True])
def test_a_connection_cut_during_a_first_upload_takes_back_its_empty_bot(
        logged_in: FakeSite, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        reached: bool) -> None:
    """A chaos trial killed the web worker taking a new bot's upload: the bot stayed, empty, unsaid."""
    send = client.ApiClient.request

    def cut(self: client.ApiClient, method: str, path: str, *args: object, **kwargs: object) -> object:
        if method == "POST" and path.endswith("/versions/"):
            if reached:  # stored, and the answer lost
                send(self, method, path, *args, **kwargs)  # type: ignore[arg-type]
            raise client.RemoteError(f"cannot reach {self.server}: Connection reset by peer")
        return send(self, method, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(client.ApiClient, "request", cut)
    assert _submit() == 2
    err = capsys.readouterr().err.splitlines()[-1]
    said = "the upload reached the site all the same: bot mybot has it" if reached else \
        "the upload did not reach the site, and bot mybot made for it was deleted again"
    assert err.startswith(f"armada: error: cannot reach {logged_in.url}: Connection reset by peer; {said}"), err
    assert [b["name"] for b in logged_in.bots] == (["mybot"] if reached else [])


def test_a_server_error_on_a_first_upload_takes_back_its_empty_bot(
        logged_in: FakeSite, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A review: a 503 ("storage unavailable, nothing was saved") or a proxy's 502 left the new bot empty."""
    send = client.ApiClient.request

    def failing(self: client.ApiClient, method: str, path: str, *args: object, **kwargs: object) -> object:
        if method == "POST" and path.endswith("/versions/"):
            raise client.RemoteError("storage unavailable, nothing was saved (OSError); try again", exit_code=3,
                                     status=503)
        return send(self, method, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(client.ApiClient, "request", failing)
    assert _submit() == 3
    assert capsys.readouterr().err.splitlines()[-1] == (
        "armada: error: storage unavailable, nothing was saved (OSError); try again; the upload did not reach "
        "the site, and bot mybot made for it was deleted again")
    assert logged_in.bots == []


def test_an_interrupted_upload_to_a_bot_that_was_there_says_it_may_be_stored(
        logged_in: FakeSite, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert _submit("--no-wait") == 0
    send = client.ApiClient.request

    def interrupted(self: client.ApiClient, method: str, path: str, *args: object, **kwargs: object) -> object:
        if method == "POST" and path.endswith("/versions/"):
            raise KeyboardInterrupt
        return send(self, method, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(client.ApiClient, "request", interrupted)
    assert _submit() == 130
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"armada: error: interrupted; the upload may have reached the site all the same: see its page, "
        f"{logged_in.url}/bots/1/, before sending it again")
    assert logged_in.seen("DELETE") == [] and [b["name"] for b in logged_in.bots] == ["mybot"]


def test_a_file_name_that_is_not_utf8_is_refused_by_name(bot_dir: Path) -> None:
    """An API trial: a file named with the byte 0xff was a UnicodeEncodeError's traceback."""
    (bot_dir / os.fsdecode(b"notes\xff.txt")).write_text("x")
    with pytest.raises(CliError, match=r"notes\\xff\.txt: its name is not UTF-8 text, which a zip cannot hold"):
        zip_folder(bot_dir)


def test_a_refused_upload_keeps_a_bot_that_was_there(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert _submit("--no-wait") == 0
    logged_in.force("POST", "/api/bots/1/versions/", 400, {"detail": "zip has too many entries: 312 (limit 200)"})
    assert _submit() == 2
    assert capsys.readouterr().err.endswith("upload refused: zip has too many entries: 312 (limit 200) (HTTP 400)\n")
    assert [b["name"] for b in logged_in.bots] == ["mybot"] and logged_in.seen("DELETE") == []


def test_a_bot_that_cannot_be_deleted_again_is_named(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.force("POST", "/api/bots/1/versions/", 400, {"detail": "zip looks like a zip bomb"})
    logged_in.force("DELETE", "/api/bots/1/", 503, {"detail": "maintenance"})
    assert _submit() == 2
    assert capsys.readouterr().err.startswith("armada: error: upload refused: zip looks like a zip bomb (HTTP 400); "
                                              "the bot mybot made for it is left without a version (deleting it "
                                              "failed: ")


def test_bot_creation_refused(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.force("POST", "/api/bots/", 400, {"detail": "You already have 5 galaxy bots (the limit)."})
    assert _submit() == 2
    assert capsys.readouterr().err == ("armada: error: cannot create bot mybot: You already have 5 galaxy bots "
                                       "(the limit). (HTTP 400)\n")


def test_server_failure_on_upload_exits_3(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.force("POST", "/api/bots/1/versions/", 500, b"oops", "text/plain")
    assert _submit() == 3
    assert "the server failed on POST /api/bots/1/versions/ (HTTP 500)" in capsys.readouterr().err


def test_bad_token_exits_2(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ARMADA_TOKEN", "revoked")
    monkeypatch.setenv("ARMADA_SERVER", site.url)
    assert _submit() == 2
    assert capsys.readouterr().err == ("armada: error: the server refused the token in ARMADA_TOKEN (Invalid token.): "
                                       "set ARMADA_TOKEN to a valid token, or unset it to use the one `armada login` "
                                       "stores\n")
    assert site.seen("GET", "/api/me/")[0].headers["Authorization"] == "Token revoked"
    assert site.seen("POST", "/api/bots/1/versions/") == []


def test_not_logged_in(site: FakeSite, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _submit("--server", site.url) == 2
    assert capsys.readouterr().err == "armada: error: not logged in: run `armada login` (or set ARMADA_TOKEN)\n"
    assert site.requests == []


def test_request_timeout_is_a_network_error(logged_in: FakeSite, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(client, "REQUEST_TIMEOUT_S", 0.2)
    logged_in.slow["/api/me/"] = 1.0
    assert _submit() == 2
    assert capsys.readouterr().err == f"armada: error: cannot reach {logged_in.url}: no answer within 0.2 s\n"


def test_connection_refused(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    config.save_credentials(config.Credentials(url, TOKEN, "alice"))
    assert _submit() == 2
    assert capsys.readouterr().err == f"armada: error: cannot reach {url}: Connection refused\n"


@pytest.mark.parametrize(("argv", "message"), [
    (["submit", "builtin:random", "--bot", "abc"], "builtin:random: a starter of galaxy and mothership: pass --game"),
    (["submit", "builtin:random", "--game", "galaxy"], "builtin:random: give the bot's name on the site with --bot"),
    (["submit", "--game", "galaxy", "--bot", "abc"], "the following arguments are required: PATH"),
    (["submit", "builtin:random", "--game", "chess", "--bot", "abc"], "invalid choice: 'chess'"),
    (["submit", "builtin:random", "--game", "galaxy", "--bot", "abc", "--timeout", "0"], "above 0"),
    (["submit", "builtin:random", "--game", "galaxy", "--bot", "abc", "--timeout", "soon"], "number of seconds"),
    (["submit", "builtin:random", "--game", "galaxy", "--bot", "a b"], "bad bot name 'a b': use 3 to 40"),
    (["submit", "builtin:random", "--game", "galaxy", "--bot", "x" * 41], "bad bot name"),
    (["submit", "builtin:nope", "--game", "galaxy", "--bot", "abc"], "no starter bot 'nope' for galaxy"),
    (["submit", "missing.py", "--game", "galaxy", "--bot", "abc"], "missing.py: no such file or folder"),
])
def test_usage_errors_exit_2(argv: list[str], message: str, site: FakeSite, home: Path,
                             monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    monkeypatch.setenv("ARMADA_SERVER", site.url)
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert site.requests == []


def test_submit_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["submit", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: armada submit")
    assert "armada submit mybot --game galaxy --bot mybot" in out.split("examples:")[1]
    assert "armada submit mybot " in out.split("examples:")[1]


def test_terminal_progress_is_redrawn(logged_in: FakeSite, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    assert _submit() == 0
    text = stream.getvalue()
    assert text.startswith("\rversion 1: pending (0 s)\033[K")
    assert text.endswith("valid (0 s)\033[K\n")
    assert json.dumps(text).count("\\n") == 1  # one line, redrawn


def test_slow_answers_while_waiting_end_at_the_deadline(logged_in: FakeSite,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.slow["/api/versions/100/"] = 3.0
    started = time.monotonic()
    assert _submit("--timeout", "0.5") == 3
    assert time.monotonic() - started < 2.8  # one poll of at most 1 s, not the 30 s request timeout
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (f"armada: error: gave up waiting after 0.5 s for version 1 ({logged_in.url}/bots/1/versions/1/): "
                   f"cannot reach {logged_in.url}: no answer within 1 s")


def test_interrupted_wait_says_where_the_version_is(logged_in: FakeSite, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def interrupt(seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(polling.time, "sleep", interrupt)
    assert _submit() == 130
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"armada: error: interrupted; version 1 ({logged_in.url}/bots/1/versions/1/) is uploaded and its "
        "validation goes on")


@pytest.mark.parametrize("owner", [{"id": 1, "username": "alice"}, 1])
def test_owner_as_object_or_id(logged_in: FakeSite, owner: object) -> None:
    logged_in.bots = [{"id": 3, "name": "mybot", "game": "galaxy", "owner": owner, "retired": False}]
    logged_in.bot_page = lambda query: {"count": 1, "next": None, "previous": None, "results": logged_in.bots}
    assert _submit("--no-wait") == 0
    assert logged_in.seen("POST", "/api/bots/") == []
    assert len(logged_in.seen("POST", "/api/bots/3/versions/")) == 1


# --- --game and --bot from the bot itself ---------------------------------------------------


@pytest.mark.parametrize("game", ["galaxy", "mothership"])
def test_a_new_bot_folder_needs_neither_game_nor_name(game: str, logged_in: FakeSite, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "racer", "--game", game]) == 0
    assert json.loads((tmp_path / "racer" / "armada.json").read_text()) == {"game": game, "starter": "greedy"}
    capsys.readouterr()
    assert main(["submit", "racer"]) == 0
    captured = capsys.readouterr()
    assert f"created bot racer ({game})" in captured.out
    assert f"armada: game {game} (from racer/armada.json), bot name racer (from racer)" in captured.err
    assert logged_in.seen("POST", "/api/bots/")[0].json()["game"] == game
    # the recorded game wins over the code's signs, and --game and --bot still win over both
    assert main(["submit", "racer/main.py", "--game", game, "--bot", "other-name", "--no-wait"]) == 0
    assert logged_in.seen("POST", "/api/bots/")[1].json()["name"] == "other-name"


def test_a_game_other_than_the_folders_is_refused_before_anything_is_made(logged_in: FakeSite, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A trial: `armada submit learner --game mothership` for a Galaxy folder made a Mothership bot (one of
    the owner's bots used up) whose version then crashed at validation, without a word before."""
    monkeypatch.chdir(tmp_path)
    assert main(["new", "learner", "--game", "galaxy"]) == 0
    capsys.readouterr()
    assert main(["submit", "learner", "--game", "mothership", "--bot", "learnerms"]) == 2
    err = capsys.readouterr().err
    assert err == ("armada: error: --game mothership, but learner/armada.json names galaxy: its code would fail the "
                   "site's validation game; leave --game out, or change armada.json if the bot plays mothership\n")
    assert logged_in.paths() == []  # nothing asked of the site, nothing made
    assert main(["submit", "learner", "--game", "galaxy", "--no-wait"]) == 0  # the folder's own game


def test_a_loose_file_of_another_game_is_refused_before_anything_is_made(logged_in: FakeSite, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A new competitor's trial: `armada submit loose/galbot.py --game mothership` (a Galaxy bot's file, no
    armada.json beside it) made a Mothership bot that crashed at validation and stayed on the account;
    without --game the CLI itself had said "game galaxy (from its galbot.py)"."""
    monkeypatch.chdir(tmp_path)
    assert main(["new", "src", "--game", "galaxy"]) == 0
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "galbot.py").write_text((tmp_path / "src" / "main.py").read_text())
    capsys.readouterr()
    assert main(["submit", "loose/galbot.py", "--game", "mothership", "--bot", "wronggame"]) == 2
    err = capsys.readouterr().err
    assert "--game mothership, but its galbot.py is a galaxy bot" in err and "leave --game out" in err
    assert logged_in.paths() == []
    assert main(["submit", "loose/galbot.py", "--game", "galaxy", "--bot", "rightgame", "--no-wait"]) == 0


def test_a_file_importing_its_folders_modules_is_refused_alone(logged_in: FakeSite, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A trial: `armada play rlbot/main.py` ran (it runs the folder) but `armada submit rlbot/main.py` sent
    the file alone, and the version was invalid: "No module named 'encoding'"."""
    monkeypatch.chdir(tmp_path)
    assert main(["new", "rlbot", "--game", "galaxy"]) == 0
    entry = tmp_path / "rlbot" / "main.py"
    (tmp_path / "rlbot" / "encoding.py").write_text("SIZE = 3\n")
    (tmp_path / "rlbot" / "unused.py").write_text("import json\n")
    entry.write_text(entry.read_text() + "\nimport encoding\n")  # (after its `from __future__` import)
    capsys.readouterr()
    assert main(["submit", "rlbot/main.py", "--bot", "rlbot"]) == 2
    assert capsys.readouterr().err == (
        "armada: error: rlbot/main.py imports encoding.py from its folder, which uploading the file alone leaves "
        "out: submit the folder instead (armada submit rlbot); nothing was sent\n")
    assert logged_in.paths() == []
    entry.write_text(entry.read_text().replace("import encoding\n", "try:\n    import encoding\n"
                                               "except ImportError:\n    encoding = None\n"))
    assert main(["submit", "rlbot/main.py", "--bot", "rlbot", "--no-wait"]) == 0  # a guarded import may be absent
    assert main(["submit", "rlbot", "--no-wait"]) == 0
    loose = tmp_path / "loose"  # a file that is no folder's main.py: a folder would not run it
    loose.mkdir()
    (loose / "helpers.py").write_text("X = 1\n")
    (loose / "galbot.py").write_text(entry.read_text() + "\nimport helpers\n")
    capsys.readouterr()
    assert main(["submit", "loose/galbot.py", "--bot", "galbot"]) == 2
    assert capsys.readouterr().err.endswith("imports helpers.py from its folder, which uploading the file alone "
                                            "leaves out: put them in a bot folder with galbot.py as its main.py, "
                                            "and submit that folder; nothing was sent\n")
    (loose / "helpers.py").unlink()
    (loose / "random.py").write_text("X = 1\n")  # shadows the standard library's here; the server has its own
    (loose / "galbot.py").write_text(entry.read_text() + "\nimport random\n")
    assert main(["submit", "loose/galbot.py", "--bot", "galbot", "--no-wait"]) == 0


def test_a_name_from_the_folder_taken_by_another_says_to_pass_bot(logged_in: FakeSite, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The README's `armada new mybot` then `armada submit mybot` on a site where someone else has a mybot: the
    site's 409 alone says to choose another name, and the CLI says how (the name came from the folder)."""
    logged_in.bots.append({"id": 1, "name": "mybot", "game": "galaxy", "owner": "bob", "team": {"id": 9, "name": "bob"},
                           "description": "", "active_version": None, "retired": False})
    monkeypatch.chdir(tmp_path)
    assert main(["new", "mybot", "--game", "galaxy"]) == 0
    capsys.readouterr()
    assert main(["submit", "mybot"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == ("armada: error: the bot mybot is team bob's, a team you are not in (the name came from mybot): "
                   "pass --bot NAME for a bot of your own")
    assert main(["submit", "mybot", "--bot", "mybot"]) == 2  # a name you chose: the site's words are enough
    assert capsys.readouterr().err.endswith("a team you are not in: pass --bot NAME for a bot of your own\n")
    assert logged_in.seen("POST", "/api/bots/") == [] and logged_in.seen("POST", "/api/bots/1/versions/") == []


@pytest.mark.parametrize(("source", "game"), [
    ("from armada.bot.galaxy import GalaxyBot\n", "galaxy"),
    ("from armada.bot.mothership import MothershipBot, Orders\n", "mothership"),
    ("import json\nif msg['type'] == 'scout': pass\n", "galaxy"),
    ('import json\nif msg["type"] == "orders": pass\n', "mothership"),
])
def test_an_older_folder_has_its_game_read_from_its_code(source: str, game: str, tmp_path: Path) -> None:
    folder = tmp_path / "old-bot"
    folder.mkdir()
    (folder / "main.py").write_text(source)
    assert botinfo.game_of(str(folder)) == (game, "its main.py")
    assert botinfo.game_of(str(folder / "main.py"))[0] == game
    (folder / "armada.json").write_text(json.dumps({"game": game, "starter": "greedy"}))
    assert botinfo.game_of(str(folder / "main.py")) == (game, str(folder / "armada.json"))
    (folder / "armada.json").unlink()
    assert botinfo.default_name(str(folder)) == botinfo.default_name(str(folder / "main.py")) == "old-bot"
    (tmp_path / "solo.py").write_text(source)
    assert botinfo.game_of(str(tmp_path / "solo.py"))[0] == game
    assert botinfo.default_name(str(tmp_path / "solo.py")) == "solo"


def test_a_zip_keeps_its_recorded_game(tmp_path: Path) -> None:
    archive = tmp_path / "race-2.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("race/main.py", "print('hello')\n")
        out.writestr("race/armada.json", '{"game": "mothership", "starter": "balanced"}')
    assert botinfo.game_of(str(archive)) == ("mothership", f"the armada.json in {archive}")
    assert botinfo.default_name(str(archive)) == "race-2"
    assert botinfo.game_of("builtin:prober") == ("galaxy", "the only game with starter 'prober'")
    assert botinfo.game_of("builtin:balanced")[0] == "mothership"


@pytest.mark.parametrize(("files", "message"), [
    ({"main.py": "print('hello')\n"}, "cannot tell which game"),
    ({"main.py": "from armada.bot.galaxy import GalaxyBot\nfrom armada.bot.mothership import Orders\n"},
     "cannot tell which game"),
    ({"main.py": "x = 1\n", "armada.json": "{not json"}, "armada.json: cannot read it"),
    ({"main.py": "x = 1\n", "armada.json": '{"game": "chess"}'}, "\"game\" must be one of galaxy, mothership"),
])
def test_when_the_game_is_unclear_it_says_to_pass_game(files: dict[str, str], message: str, tmp_path: Path,
                                                       home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "unclear"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    assert main(["submit", str(folder)]) == 2
    err = capsys.readouterr().err
    assert message in err and "pass --game galaxy or --game mothership" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("name", ["ab", "my.bot", "x" * 41, "2026"])
def test_a_folder_name_the_site_refuses_asks_for_bot(name: str, tmp_path: Path, home: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", name, "--game", "galaxy", "--dir", str(tmp_path)]) == 0  # `armada new` allows more
    capsys.readouterr()
    assert main(["submit", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert f"the bot's name would be {name!r}" in err
    # the name to pass is the one `armada new` suggested too (botinfo.site_name)
    suggested = {"ab": "ab-bot", "my.bot": "my_bot", "x" * 41: "x" * 40, "2026": "2026-bot"}[name]
    assert f"pass --bot NAME, e.g. --bot {suggested}\n" in err
    # given with --bot, the same suggestion (a trial: --bot 2026 said only the rule)
    assert main(["submit", str(tmp_path / name), "--bot", name]) == 2
    assert capsys.readouterr().err.endswith(f"not digits alone, e.g. --bot {suggested}\n")


def test_a_path_that_is_no_bot_is_refused_before_any_name_is_said(logged_in: FakeSite, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A model file given by mistake: the refusal alone, not first "bot name model (from ...)"."""
    model = tmp_path / "learner" / "model.onnx"
    model.parent.mkdir()
    model.write_bytes(b"\x08\x07onnx")
    assert main(["submit", str(model), "--game", "galaxy"]) == 2
    err = capsys.readouterr().err
    assert "bot name" not in err and err.startswith("armada: error:")
    assert logged_in.requests == []  # nothing asked of the site either


def test_a_token_with_letters_no_token_has_is_named_not_sent(site: FakeSite, home: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A competitor's trial: ARMADA_TOKEN='ü€bad' said "cannot reach" the server (the header could not
    be encoded), as if the site were down."""
    monkeypatch.setenv("ARMADA_TOKEN", "ü€bad")
    monkeypatch.setenv("ARMADA_SERVER", site.url)
    assert _submit() == 2
    err = capsys.readouterr().err
    assert "ARMADA_TOKEN is not a token" in err and "cannot reach" not in err
    assert site.requests == []


def test_an_entry_that_cannot_start_is_refused_before_anything_is_sent(logged_in: FakeSite, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A new competitor's trial: a main.py with a syntax error (or an empty one) was uploaded, spent one of
    the hour's uploads and a validation, and came back invalid ("crashed ... SyntaxError"); for a new bot
    name the bot was made and deleted again. The CLI now compiles the entry first, as the site would run it."""
    monkeypatch.chdir(tmp_path)
    assert main(["new", "syn", "--game", "galaxy"]) == 0
    entry = tmp_path / "syn" / "main.py"
    good = entry.read_text()
    entry.write_text(good + "\ndef f(:\n    pass\n")
    broken_line = good.count("\n") + 2
    capsys.readouterr()
    assert main(["submit", "syn", "--bot", "synbot"]) == 2
    err = capsys.readouterr().err
    assert f"main.py, line {broken_line}: " in err and "SyntaxError" in err and err.endswith("nothing was sent\n")
    assert main(["submit", "syn/main.py", "--bot", "synbot", "--game", "galaxy"]) == 2  # the file alone, too
    entry.write_text("  \n")
    capsys.readouterr()
    assert main(["submit", "syn", "--bot", "synbot"]) == 2
    assert "main.py is empty" in capsys.readouterr().err
    entry.write_text(good)
    with zipfile.ZipFile(tmp_path / "syn.zip", "w") as archive:  # a zip's main.py is read as well
        archive.write(tmp_path / "syn" / "armada.json", "armada.json")
        archive.writestr("main.py", good + "\nreturn = 1\n")
    capsys.readouterr()
    assert main(["submit", "syn.zip", "--bot", "synbot", "--game", "galaxy"]) == 2
    assert "main.py, line" in capsys.readouterr().err
    assert logged_in.paths() == []
    assert main(["submit", "syn", "--bot", "synbot", "--no-wait"]) == 0
