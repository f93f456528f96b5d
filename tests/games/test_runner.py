"""The platform's one runner (armada_web.games.runner): the sandbox is checked once, then again
only after a failure, and a bot the sandbox could not start is the platform's failure."""

from __future__ import annotations

import pytest

from armada.botspec import starter_file
from armada_web.games import runner
from armada_web.storage.archives import check_upload
from tests.support.services import require_docker

pytestmark = [pytest.mark.docker]


@pytest.fixture
def checks(monkeypatch):
    """Count the runner's calls of the real check_ready; start from an unchecked process."""
    calls: list[str] = []
    real = runner.check_ready

    def counted(*args, **kwargs):
        calls.append(kwargs.get("image", args[0] if args else ""))
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "check_ready", counted)
    monkeypatch.setattr(runner._Sandbox, "ready", None)
    return calls


def seats():
    archive = check_upload(name="main.py", data=starter_file("random", "galaxy").read_bytes()).archive
    return {1: ("one", archive), 2: ("two", archive)}


def test_checked_once_then_again_only_after_a_failure(checks, settings):
    require_docker()
    short = {"max_turns": 3}
    outcome = runner.play(match_id="runner-1", game="galaxy", seed=1, seats=seats(), config=short)
    assert [p.status for p in outcome.players] == ["ok", "ok"]
    runner.play(match_id="runner-2", game="galaxy", seed=2, seats=seats(), config=short)
    assert len(checks) == 1  # the second game trusted the first check

    settings.ARMADA = settings.ARMADA.with_(bot_image="armada/no-such-image:missing")
    with pytest.raises(runner.PlatformFailure, match="the sandbox is unavailable"):
        runner.play(match_id="runner-3", game="galaxy", seed=3, seats=seats(), config=short)
    assert len(checks) == 1  # the bot could not start (SandboxUnavailable): no check before it
    with pytest.raises(runner.PlatformFailure, match=r"the sandbox is unavailable.*no-such-image"):
        runner.play(match_id="runner-4", game="galaxy", seed=4, seats=seats(), config=short)
    assert checks[1:] == ["armada/no-such-image:missing"]  # after the failure: checked first, nothing started


PRELUDE = b"""import os, sys
here = os.path.dirname(os.path.abspath(__file__))
print("model", os.path.getsize(os.path.join(here, "weights", "model.bin")), file=sys.stderr, flush=True)
try:
    open(os.path.join(here, "mine.txt"), "w").close()
    print("wrote into /bot", file=sys.stderr, flush=True)
except OSError as exc:
    print("read-only", exc.errno, file=sys.stderr, flush=True)
"""


def test_a_version_is_unpacked_once_per_host_and_its_folder_stays_read_only(armada, tmp_path):
    """Through the cache of unpacked versions (storage.unpacked): the second game never reads the
    archive, the bot reads its model file and cannot write beside it."""
    require_docker()
    import io
    import os
    import zipfile

    armada(unpack_cache_dir=str(tmp_path / "cache"))
    code = PRELUDE + starter_file("random", "galaxy").read_bytes().replace(b"from __future__ import annotations\n", b"")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as upload:
        upload.writestr("main.py", code)
        upload.writestr("weights/model.bin", os.urandom(300_000))
    with check_upload(name="bot.zip", data=buffer.getvalue(), game="galaxy") as bundle:
        archive = bundle.archive
    opened = []
    base = runner.Source.of_bytes(archive)
    counted = runner.Source(base.sha256, lambda: opened.append(1) or base.open())
    for n in (1, 2):
        outcome = runner.play(match_id=f"runner-cache-{n}", game="galaxy", seed=n,
                              seats={1: ("model", counted), 2: ("model", counted)}, config={"max_turns": 2})
        log = outcome.players[0].log
        assert [p.status for p in outcome.players] == ["ok", "ok"], log
        assert "model 300000" in log and "read-only 30" in log and "wrote" not in log  # EROFS
    assert opened == [1]  # unpacked for the first seat of the first game only
