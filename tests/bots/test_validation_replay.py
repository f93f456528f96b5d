"""The validation game can be watched (issue 27): validation keeps its replay beside the archive, the
owner and staff get it from `/api/versions/{id}/replay/` and see it in the viewer on the version's
page; anyone else gets a 404 and no viewer. The game is played by validation's own code (claim, run,
record) with the uploaded code as a local process in place of the sandbox (`validation.play`
swapped), so no Docker is needed."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from rest_framework.test import APIClient

from armada.botspec import starter_file
from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot
from armada.replay import load_replay_bytes

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password-42"
CRASHER = "import sys\nsys.stdin.readline()\nraise SystemExit('no init for you')\n"


def local_play(folder: Path):
    """`games.runner.play` with local processes: the stored archive unpacked and run, the starter against it."""
    from armada_web.storage.archives import unpack

    def play(*, match_id, game, seed, seats, config, purpose="match"):
        bots = {}
        for seat, (name, archive) in seats.items():
            code = folder / f"{match_id}-{seat}"
            code.mkdir(parents=True, exist_ok=True)
            if isinstance(archive, bytes):
                unpack(archive=archive, dest=str(code))
            else:  # a stored version: a Source (storage.unpacked), opened as the runner opens it
                with archive.open() as handle:
                    unpack(archive=handle, dest=str(code))
            bots[seat] = ProcessBot([sys.executable, str(code / "main.py")], label=name)
        return play_match(game, bots, seed=seed, config={**config, "max_turns": 8} if game == "galaxy" else config)

    return play


def validate(make_user, monkeypatch, tmp_path, code: str, owner=None, name: str = "watched"):
    """Upload `code` as a new bot's version and validate it here; returns the version, reloaded."""
    from armada_web.bots import validation
    from armada_web.bots.services import create_bot, upload_version
    from armada_web.jobs.leases import claim

    monkeypatch.setattr(validation, "play", local_play(tmp_path))
    owner = owner or make_user("owner")
    bot = create_bot(user=owner, name=name, game="galaxy")
    version = upload_version(bot=bot, user=owner, filename="main.py", data=code.encode())
    lease = claim(kind=validation.VALIDATION, job_id=version.pk)
    assert lease is not None
    validation.run(lease)
    version.refresh_from_db()
    return version


def greedy() -> str:
    return starter_file("greedy", "galaxy").read_text()


def test_validation_keeps_its_replay_for_the_owner_and_staff_only(make_user, monkeypatch, tmp_path, client):
    version = validate(make_user, monkeypatch, tmp_path, greedy())
    assert version.status == "valid"
    name = version.replay.name
    assert name.startswith(f"versions/{version.bot_id}/{version.number}-validation-a1") and name.endswith(".json.gz")
    with default_storage.open(name, "rb") as handle:
        stored = handle.read()
    replay = load_replay_bytes(stored)
    assert replay["game"] == "galaxy" and [s["name"] for s in replay["seats"]] == ["Greedy", "Random"]  # as they said
    assert [s["bot"] for s in replay["seats"]] == ["watched", "random starter"]  # as its page names them (a trial)
    assert replay["result"]["turns"] == 8

    url = f"/api/versions/{version.pk}/replay/"
    make_user("other")
    make_user("root", is_staff=True)
    for who, status in ((None, 404), ("other", 404), ("owner", 200), ("root", 200)):
        api = APIClient()
        if who:
            api.login(username=who, password=PASSWORD)
        response = api.get(url)
        assert response.status_code == status, who
        if status == 200:
            assert response["Content-Type"] == "application/gzip" and response.content == stored
            assert gzip.decompress(response.content)  # the viewer unpacks it in the browser
            # named by the version's number, as its page names it (a trial: "v1" saved as validation-7)
            assert 'filename="watched-v1-validation.json.gz"' in response["Content-Disposition"]

    page = f"/bots/{version.bot_id}/versions/{version.number}/"
    for who, shown in ((None, False), ("other", False), ("owner", True), ("root", True)):
        client.logout()
        if who:
            client.login(username=who, password=PASSWORD)
        html = client.get(page).content.decode()
        assert ('id="validation-game"' in html) is shown, who
        assert (f'data-armada-src="{url}"' in html) is shown, who
        assert ("&quot;you&quot;: true" in html) is (who == "owner"), who  # the viewer marks the owner's seat


def test_an_invalid_version_keeps_its_game_too_and_a_missing_one_is_a_404(make_user, monkeypatch, tmp_path):
    version = validate(make_user, monkeypatch, tmp_path, CRASHER, name="crashy")
    assert version.status == "invalid" and version.replay.name
    api = APIClient()
    api.login(username="owner", password=PASSWORD)
    replay = load_replay_bytes(api.get(f"/api/versions/{version.pk}/replay/").content)
    assert replay["seats"][0]["status"] != "ok"  # the crash the owner came to see
    default_storage.delete(version.replay.name)  # lost from storage: a 404, not a 500
    assert api.get(f"/api/versions/{version.pk}/replay/").status_code == 404


def test_the_replay_goes_with_its_version_and_is_no_orphan(make_user, monkeypatch, tmp_path,
                                                           django_capture_on_commit_callbacks):
    from armada_web.bots.services import delete_bot
    from armada_web.matches import retention

    version = validate(make_user, monkeypatch, tmp_path, greedy())
    name = version.replay.name
    later = retention.plan(now=version.finished + __import__("datetime").timedelta(days=365))
    assert name not in [item.name for item in later.items]  # a row names it: kept
    with django_capture_on_commit_callbacks(execute=True):
        delete_bot(bot=version.bot, user=version.bot.owner)
    assert not default_storage.exists(name)


def test_the_validation_replay_keeps_what_the_bot_drew(make_user, monkeypatch, tmp_path):
    """The validation game is where a Mothership Down bot's drawings can be seen on the site (its league
    battles are played from its orders, without running it): its private replay keeps seat 1's `debug`."""
    drawer = greedy().replace("        self.learn(obs)\n", "        self.learn(obs)\n"
                              "        self.debug.ring(obs.home, color='green')\n        self.debug.text('home')\n")
    assert drawer != greedy()
    version = validate(make_user, monkeypatch, tmp_path, drawer)
    assert version.status == "valid"
    with default_storage.open(version.replay.name, "rb") as handle:
        replay = load_replay_bytes(handle.read())
    assert list(replay["debug"]) == ["1"]  # the starter it played drew nothing
    assert replay["debug"]["1"]["turns"] == [{"turn": t, "shapes": [{"kind": "ring", "at": 1, "color": "green"}],
                                              "text": "home"} for t in range(1, 9)]
    plain = validate(make_user, monkeypatch, tmp_path, greedy(), owner=version.bot.owner, name="plain")
    with default_storage.open(plain.replay.name, "rb") as handle:
        assert "debug" not in load_replay_bytes(handle.read())  # nothing drawn: no key


def test_a_valid_version_whose_bot_caught_exceptions_says_so(make_user, monkeypatch, tmp_path):
    """A competitor's trial: a bot raising at every turn (a typo, `obs.planet`) was "valid" with no
    word of it, then lost every ranked game; the exceptions were only in its log."""
    broken = greedy().replace("    def learn(self, obs: Observation) -> None:\n",
                              "    def learn(self, obs: Observation) -> None:\n"
                              "        if obs.turn % 2 == 0:\n            len(self.seen) / 0\n", 1)
    assert broken != greedy()
    version = validate(make_user, monkeypatch, tmp_path, broken)
    assert version.status == "valid"  # every other turn: it still sent its own orders (D-S-35)
    assert version.detail.startswith("its bot caught 4 exceptions and went on, the first at turn 2 "
                                     "(ZeroDivisionError): see its log"), version.detail
    assert "division by zero" not in version.detail  # the message is the private log's
    assert "division by zero" in version.log
    clean = validate(make_user, monkeypatch, tmp_path, greedy(), owner=version.bot.owner, name="clean")
    assert clean.status == "valid" and clean.detail == ""


@pytest.mark.parametrize(("raising", "said"), [
    # a trial's typo (`self.lern(obs)`): command raised at every turn, scout was the library's default
    ("", "raised 8 exceptions in its 8 turns (16 requests), the first at turn 1 (ZeroDivisionError)"),
    # a model fed under the wrong input name: scout and command both raised
    ("    def scout(self, obs: Observation) -> list[int]:\n        raise ValueError('no input named obs')\n\n",
     "raised 16 exceptions in its 8 turns (16 requests), the first at turn 1 (ValueError)"),
])
def test_a_version_whose_bot_raised_at_every_turn_is_invalid_and_the_active_one_stays(
        make_user, monkeypatch, tmp_path, raising, said):
    """D-S-35. Two competitors' trials: a bot raising at every turn was "valid" with a note, replaced a
    working version on the ladder and lost every game, its orders all the library's fallback."""
    from armada_web.bots import validation
    from armada_web.bots.services import upload_version
    from armada_web.jobs.leases import claim

    working = validate(make_user, monkeypatch, tmp_path, greedy())
    broken = greedy().replace("    def learn(self, obs: Observation) -> None:\n",
                              raising + "    def learn(self, obs: Observation) -> None:\n        len(self.seen) / 0\n",
                              1)
    assert broken != greedy()
    version = upload_version(bot=working.bot, user=working.bot.owner, filename="main.py", data=broken.encode())
    validation.run(claim(kind=validation.VALIDATION, job_id=version.pk))
    version.refresh_from_db()
    working.bot.refresh_from_db()
    assert version.status == "invalid" and working.bot.active_version_id == working.pk
    assert version.detail.startswith(f"exceptions: its bot {said}: at least one a turn, each answered by the "
                                     "library's fallback, not the bot"), version.detail
    assert "no input named obs" not in version.detail and "division by zero" not in version.detail  # private


def test_a_long_validation_log_keeps_its_first_and_last_lines():
    from armada_web.bots.validation import kept_log

    log = "".join(f"line {n}: {'x' * 40}\n" for n in range(2000))  # about 100 KB
    kept = kept_log(log, keep=4096)
    assert len(kept) <= 4096 + 80
    assert kept.startswith("line 0: ") and kept.endswith(f"line 1999: {'x' * 40}\n")
    head, marker, tail = kept.partition("\n[armada] ... ")
    gone, _, tail = tail.partition(" characters of the log left out here ...\n")
    assert marker and len(head) + int(gone) + len(tail) == len(log) and log.startswith(head) and log.endswith(tail)
    assert all(line.startswith(("line ", "[armada]")) for line in kept.splitlines())  # whole lines only
    assert kept_log("short\n", keep=4096) == "short\n"


def test_the_version_page_gives_its_owner_the_command_that_reruns_the_validation_game(
        make_user, monkeypatch, tmp_path, client, capsys):
    """A competitor's trial: an invalid version never plays a match, so its validation game was the one game
    its owner could not replay at home exactly: a bot seeded by ARMADA_BOT_SEED answered otherwise there.
    The version's page gives its owner (and staff) the command with `--bot-seed`; it runs as written."""
    import html as markup
    import re
    import shlex

    from armada.cli.main import main

    code = starter_file("random", "galaxy").read_text()  # its moves come from ARMADA_BOT_SEED
    monkeypatch.setenv("ARMADA_BOT_SEED_KEY", "a-site-secret-" * 3)  # the site's, which no home has
    version = validate(make_user, monkeypatch, tmp_path, code)
    page = f"/bots/{version.bot_id}/versions/{version.number}/"
    make_user("other")
    for who in (None, "other"):
        client.logout()
        if who:
            client.login(username=who, password=PASSWORD)
        assert "--rerun" not in client.get(page).content.decode(), who
    client.login(username="owner", password=PASSWORD)
    shown = [markup.unescape(c) for c in re.findall(r'<pre class="cmd"[^>]*>([^<]*)</pre>',
                                                    client.get(page).content.decode())]
    command = next(c for c in shown if "--rerun" in c)
    # the bot's folder named as the bot, as `armada new` and `armada submit` name it (a trial)
    assert command.startswith("armada replay watched-v1-validation.json.gz --rerun 1 watched/ --bot-seed ")
    home = tmp_path / "home"
    (home / "watched").mkdir(parents=True)
    (home / "watched" / "main.py").write_text(code)
    (home / "watched-v1-validation.json.gz").write_bytes(client.get(f"/api/versions/{version.pk}/replay/").content)
    monkeypatch.chdir(home)
    monkeypatch.delenv("ARMADA_BOT_SEED_KEY")
    capsys.readouterr()
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out.startswith("all 8 turns agree (")
    assert main(shlex.split(command.rsplit(" --bot-seed ", 1)[0])[1:]) != 0  # the seed is what made them agree



def test_an_account_deleted_during_its_validation_keeps_no_log_or_replay(make_user, monkeypatch, tmp_path,
                                                                          django_capture_on_commit_callbacks):
    """A review: the owner deleted their account while a worker validated their version; the
    worker's record still held and wrote the bot's log and a new replay onto the forgotten version.
    The deletion ends the validation (unvalidated), so the record no longer holds and its replay goes."""
    from armada_web.accounts.services import delete_account
    from armada_web.bots import validation
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import OWNER_GONE, create_bot, upload_version
    from armada_web.jobs.leases import claim

    owner = make_user("leaver", password=PASSWORD)
    played = local_play(tmp_path)

    def play_and_leave(**kwargs):
        result = played(**kwargs)  # the game is over, its result not yet recorded: the owner leaves
        delete_account(user=owner, password=PASSWORD)
        return result

    monkeypatch.setattr(validation, "play", play_and_leave)
    with django_capture_on_commit_callbacks(execute=True):
        bot = create_bot(user=owner, name="leaving", game="galaxy")
        version = upload_version(bot=bot, user=owner, filename="main.py",
                                 data=(greedy() + "\nimport sys\nprint('SECRET', file=sys.stderr)\n").encode())
        lease = claim(kind=validation.VALIDATION, job_id=version.pk)
        assert lease is not None
        assert validation.run(lease) == "superseded"
    version = BotVersion.objects.select_related("bot").get(pk=version.pk)
    assert (version.status, version.detail, version.log, version.replay.name) == ("invalid", OWNER_GONE, "", "")
    assert version.bot.owner is None and version.bot.retired is not None
    files = default_storage.listdir(f"versions/{bot.pk}")[1] if default_storage.exists(f"versions/{bot.pk}") else []
    assert files == []  # neither the archive nor the game's replay is kept
