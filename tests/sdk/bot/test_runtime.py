"""armada.bot.runtime.run: the protocol loop bot authors end their script with."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap

import pytest

from armada.bot.base import BaseBot
from armada.bot.runtime import run


class Counter(BaseBot):
    name = "Counter"

    def __init__(self) -> None:
        self.init = None
        self.seen = []

    def on_init(self, init):
        self.init = init

    def answer(self, request):
        self.seen.append(request["id"])
        print("chatty bot code")  # must not reach the protocol stream
        if request.get("boom"):
            raise RuntimeError("author bug")
        return {"n": len(self.seen)}


class Careful(Counter):
    def fallback(self, request):
        return {"n": 0}


def lines(*messages) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


def replies(out: io.StringIO | io.BytesIO) -> list[dict]:
    text = out.getvalue()
    if isinstance(text, bytes):
        text = text.decode()
    return [json.loads(line) for line in text.splitlines()]


def test_init_requests_and_end(capsys):
    bot = Counter()
    out = io.StringIO()
    stdin = io.StringIO(lines({"type": "init", "id": 0, "seat": 2}, {"type": "move", "id": 1},
                              {"type": "move", "id": 2}, {"type": "end", "id": 3, "result": {}},
                              {"type": "move", "id": 4}))
    run(bot, stdin=stdin, stdout=out)
    assert replies(out) == [{"id": 0, "name": "Counter"}, {"id": 1, "n": 1}, {"id": 2, "n": 2}]
    assert bot.init["seat"] == 2
    assert bot.seen == [1, 2]  # nothing after end
    assert capsys.readouterr().err.count("chatty bot code") == 2


def test_binary_streams_and_end_of_input():
    out = io.BytesIO()
    run(Counter(), stdin=io.BytesIO(lines({"type": "move", "id": 7}).encode()), stdout=out)
    assert replies(out) == [{"id": 7, "n": 1}]


def test_exception_uses_fallback_and_logs_traceback(capsys):
    out = io.StringIO()
    run(Careful(), stdin=io.StringIO(lines({"type": "move", "id": 1, "boom": True}, {"type": "move", "id": 2})),
        stdout=out)
    assert replies(out) == [{"id": 1, "n": 0}, {"id": 2, "n": 2}]
    err = capsys.readouterr().err
    assert "RuntimeError: author bug" in err and "fallback" in err


def test_exception_without_fallback_propagates():
    out = io.StringIO()
    with pytest.raises(RuntimeError, match="author bug"):
        run(Counter(), stdin=io.StringIO(lines({"type": "move", "id": 1, "boom": True})), stdout=out)
    assert out.getvalue() == ""


def test_non_dict_answer_goes_to_fallback():
    class Sloppy(Careful):
        def answer(self, request):
            return [1, 2]

    out = io.StringIO()
    run(Sloppy(), stdin=io.StringIO(lines({"type": "move", "id": 1})), stdout=out)
    assert replies(out) == [{"id": 1, "n": 0}]


def test_real_process_writes_to_fd_1_land_in_stderr(tmp_path):
    script = tmp_path / "bot.py"
    script.write_text(textwrap.dedent("""
        import os, sys
        from armada.bot.base import BaseBot
        from armada.bot.runtime import run

        class Noisy(BaseBot):
            name = "Noisy"
            def answer(self, request):
                print("via print")
                os.write(1, b"via fd 1\\n")
                sys.stdout.write("via sys.stdout\\n")
                return {"ok": True}

        run(Noisy())
        print("after run", flush=True)
    """))
    proc = subprocess.run([sys.executable, str(script)], input=lines({"type": "init", "id": 0}, {"type": "x", "id": 1}),
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ['{"id":0,"name":"Noisy"}', '{"id":1,"ok":true}', "after run"]
    for text in ("via print", "via fd 1", "via sys.stdout"):
        assert text in proc.stderr


def play_named(tmp_path, name_line: str, labels: tuple[str, str]):
    """Two copies of a Galaxy bot that does nothing, with `name_line` in its class, played through the
    referee as processes labelled `labels`; the outcome."""
    import sys

    from armada.referee.match import play_match
    from armada.referee.process_bot import ProcessBot

    script = tmp_path / "main.py"
    script.write_text(
        "from armada.bot.galaxy import GalaxyBot\n"
        "from armada.bot.runtime import run\n"
        "class Idle(GalaxyBot):\n"
        f"{name_line}"
        "    def scout(self, obs):\n        return []\n"
        "    def command(self, obs, intel, warnings):\n        return []\n"
        "run(Idle())\n"
    )
    bots = {seat: ProcessBot([sys.executable, str(script)], label=label) for seat, label in zip((1, 2), labels)}
    return play_match("galaxy", bots, seed=1, config={"max_turns": 2})


def test_a_bot_without_a_name_lets_the_referee_show_its_own_name(tmp_path):
    """MD-3: no name in the init reply, so the connection's label (file or platform name) is shown."""
    outcome = play_named(tmp_path, "", ("quiet-one", "quiet-two"))
    assert [p.name for p in outcome.players] == ["quiet-one", "quiet-two"]


@pytest.mark.parametrize(("name", "why"), [
    ("x" * 41, "the name has 41 characters after trimming; at most 40 are shown"),
    ("two\nlines", "the name holds characters that cannot be printed"),
    ("   ", "the name is empty"),
])
def test_a_name_not_shown_says_why_in_the_bots_log(tmp_path, name, why):
    """MD-3: a name past 40 characters (or unprintable, or blank) is replaced by the label, and the
    bot's log says so (a trial: it was replaced without a word)."""
    outcome = play_named(tmp_path, f"    name = {name!r}\n", ("named", "other"))
    assert [p.name for p in outcome.players] == ["named", "other"]
    assert f"[armada] init: your name is not shown ({why}" in outcome.players[0].log
    assert "shown as named" in outcome.players[0].log
