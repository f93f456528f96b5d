"""Property-based fuzzing of the whole API (issues 20 and 30): Schemathesis, over HTTP, against a
live site (gunicorn, DEBUG off, Redis), anonymous and signed in, on every operation of
/api/schema/, with every check it has (`--checks all`: server errors, responses and statuses the
schema does not state, content types, valid input refused, invalid input accepted, unsupported
methods, missing auth ignored, resources after create and delete) in every phase (the schema's
examples, its coverage of each bound and enum, random fuzzing, stateful sequences): 0 failures.

One check is told more than its default for a few operations, where its rule is wrong for that
operation by design (`POSITIVE_400`): `positive_data_acceptance` expects every request the schema
allows to pass, but these refuse, with a 400 naming the reason, input whose fault no schema can
state (OpenAPI has no rule between two parameters, about the stored objects, or about the clock).
"""

from __future__ import annotations

import json
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

CHECKS = "all"
PHASES = "examples,coverage,fuzzing,stateful"
#: Examples per operation in the fuzzing phase (the coverage phase makes its own, every bound once).
EXAMPLES = int(os.environ.get("ARMADA_FUZZ_EXAMPLES", "25"))
#: More arguments for Schemathesis, to look into a failure (`--continue-on-failure` lists them all).
EXTRA = os.environ.get("ARMADA_FUZZ_ARGS", "").split()

#: (method, path) -> why a request the schema allows may still be a 400 there (see the module).
POSITIVE_400 = {
    ("GET", "/api/matches/"): "the filters depend on each other (opponent, version and result need bot) and "
                              "name stored objects (a bot by id or name, a version of that bot)",
    ("GET", "/api/replays/"): "since is a date-time whose UTC must fall within years 1 to 9999: an offset at "
                              "either end of the calendar moves it out",
    ("POST", "/api/tokens/"): "it exchanges a username and password for a token: the schema says what a "
                              "request looks like, not which credentials exist (Schemathesis itself exempts "
                              "OAuth token URLs for this reason)",
    ("POST", "/api/events/"): "its times are checked against the clock and each other (starts not past, ends "
                              "after starts), a ladder needs its end, games_per_pair is for a round robin",
    ("POST", "/api/challenges/"): "the two bots must differ and play one game that has challenges",
    ("POST", "/api/bots/{id}/versions/"): "the file must be main.py or a zip holding it: a schema's binary "
                                          "string cannot state what the archive holds",
    ("PATCH", "/api/teams/{id}/"): "a team's new name may not hold control characters nor start or end with a "
                                   "space, and its length is counted in characters, which a portable schema "
                                   "pattern cannot state",
}
POSITIVE_STATUSES = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]


def config(path: Path, dictionaries: dict[str, list[object]]) -> Path:
    """A schemathesis.toml that draws ids of real objects half the time (else anything the schema
    allows), with the exemptions of POSITIVE_400."""
    lines = ["[cache]\nenabled = false\n"]  # every run starts afresh, and writes nothing into the checkout
    lines += [f"[dictionaries.{name}]\nvalues = {json.dumps(values)}\n" for name, values in dictionaries.items()]
    for (method, route), _why in POSITIVE_400.items():
        lines.append(f'[[operations]]\ninclude-path = "{route}"\ninclude-method = "{method}"\n'
                     f"checks.positive_data_acceptance.expected-statuses = {json.dumps(POSITIVE_STATUSES)}\n")
    lines.append("[parameters]")
    for key, name in (("path.id", "ids"), ("path.a", "races"), ("path.b", "races"), ("query.bot", "bot_refs"),
                      ("body.bot", "bots"), ("body.opponent", "bots"), ("body.version", "versions")):
        lines.append(f'"{key}" = {{ dictionary = "{name}", probability = 0.5 }}')
    path.write_text("\n".join(lines) + "\n")
    return path


def schemathesis(url: str, report: Path, settings: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(settings), "run", f"{url}/api/schema/",
            "--checks", CHECKS, "--phases", PHASES,
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
    site = live_web(workers=2, THROTTLE_ANON="100000/min", THROTTLE_USER="100000/min", THROTTLE_DATASET="100000/min",
                    ARMADA_LOGIN_FAILURES_PER_IP="100000", ARMADA_LOGIN_FAILURES_PER_USER="100000")
    bots = sorted(Bot.objects.values_list("pk", flat=True))
    versions = sorted(BotVersion.objects.values_list("pk", flat=True))
    settings = config(tmp_path / "schemathesis.toml", {
        "bots": bots, "versions": versions, "races": [arena.race_a.bot_id, arena.race_b.bot_id],
        "bot_refs": [str(pk) for pk in bots] + sorted(Bot.objects.values_list("name", flat=True)),  # query: text
        "ids": sorted({*bots, *versions, *Match.objects.values_list("pk", flat=True)})})
    for who, extra in (("anonymous", []), ("signed-in", ["--header", f"Authorization: Token {secret}"])):
        started = time.monotonic()
        out = schemathesis(site.url, tmp_path / f"{who}.xml", settings, *extra, *EXTRA)
        selected = re.search(r"Selected: (\d+)/(\d+)", out.stdout)
        tested = re.search(r"Tested: (\d+)", out.stdout)
        cases = re.search(r"(\d+) generated", out.stdout)
        print(f"schemathesis {who}: {tested.group(1) if tested else '?'} operations, "
              f"{cases.group(1) if cases else '?'} test cases, {time.monotonic() - started:.0f} s")
        assert out.returncode == 0, out.stdout[out.stdout.find("FAILURES"):][:30000] + out.stderr[-3000:]
        # Every operation of the schema was selected and tested.
        assert selected and tested and selected.group(1) == selected.group(2) == tested.group(1), out.stdout[-3000:]
