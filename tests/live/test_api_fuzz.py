"""Property-based fuzzing of the whole API (issue 20): Schemathesis, over HTTP, against a live
site (gunicorn, DEBUG off, Redis), anonymous and signed in, on every operation of /api/schema/,
with its checks for server errors, responses that do not match the schema and status codes the
schema does not list: 0 failures.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.pages.data import build
from tests.support.localsite import ROOT

pytestmark = [pytest.mark.redis, pytest.mark.slow]

CHECKS = "not_a_server_error,response_schema_conformance,status_code_conformance"
#: Examples per operation and phase (the bounded run: about a minute per pass on 2 cores).
EXAMPLES = int(os.environ.get("ARMADA_FUZZ_EXAMPLES", "25"))


def config(path: Path, ids: dict[str, list[int]]) -> Path:
    """A schemathesis.toml that draws ids of real objects half the time (else anything the schema allows)."""
    lines = ["[cache]\nenabled = false\n"]  # every run starts afresh, and writes nothing into the checkout
    lines += [f"[dictionaries.{name}]\nvalues = {values}\n" for name, values in ids.items()]
    lines.append("[parameters]")
    for key, name in (("path.id", "ids"), ("path.a", "races"), ("path.b", "races"), ("query.bot", "bots"),
                      ("body.bot", "bots"), ("body.opponent", "bots"), ("body.version", "versions")):
        lines.append(f'"{key}" = {{ dictionary = "{name}", probability = 0.5 }}')
    path.write_text("\n".join(lines) + "\n")
    return path


def schemathesis(url: str, report: Path, settings: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(settings), "run", f"{url}/api/schema/",
            "--checks", CHECKS,
            "--max-examples", str(EXAMPLES), "--seed", "20", "--workers", "1", "--request-timeout", "30",
            "--report", "junit", "--report-junit-path", str(report), "--no-shrink", *args]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_schemathesis_finds_no_failure_anonymous_and_signed_in(live_web, make_user, valid_version, tmp_path):
    from armada_web.accounts.services import create_token
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.matches.models import Match

    (tmp_path / "arena").mkdir()
    arena = build(make_user, valid_version, tmp_path / "arena")  # bots of both games, a finished match, a league
    for i in range(3):  # the fuzzer tries the smallest ids: the signed-in user's token is not among them
        create_token(user=arena.bob, name=f"bob-{i}")
    _token, secret = create_token(user=arena.alice, name="fuzz")
    # Throttles out of the way, so that every generated case reaches the views (429 is documented anyway).
    site = live_web(workers=2, THROTTLE_ANON="100000/min", THROTTLE_USER="100000/min",
                    ARMADA_LOGIN_FAILURES_PER_IP="100000", ARMADA_LOGIN_FAILURES_PER_USER="100000")
    bots = sorted(Bot.objects.values_list("pk", flat=True))
    versions = sorted(BotVersion.objects.values_list("pk", flat=True))
    settings = config(tmp_path / "schemathesis.toml", {
        "bots": bots, "versions": versions, "races": [arena.race_a.bot_id, arena.race_b.bot_id],
        "ids": sorted({*bots, *versions, *Match.objects.values_list("pk", flat=True)})})
    for who, extra in (("anonymous", []), ("signed-in", ["--header", f"Authorization: Token {secret}"])):
        started = time.monotonic()
        out = schemathesis(site.url, tmp_path / f"{who}.xml", settings, *extra)
        selected = re.search(r"Selected: (\d+)/(\d+)", out.stdout)
        tested = re.search(r"Tested: (\d+)", out.stdout)
        cases = re.search(r"(\d+) generated", out.stdout)
        print(f"schemathesis {who}: {tested.group(1) if tested else '?'} operations, "
              f"{cases.group(1) if cases else '?'} test cases, {time.monotonic() - started:.0f} s")
        assert out.returncode == 0, out.stdout[out.stdout.find("FAILURES"):][:30000] + out.stderr[-3000:]
        # Every operation of the schema was selected and tested.
        assert selected and tested and selected.group(1) == selected.group(2) == tested.group(1), out.stdout[-3000:]
