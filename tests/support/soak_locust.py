"""Locust users of the soak (tests/support/soak.py): page views, API reads, uploads and challenges at once.

Run by tests/support/soak.py as `locust -f tests/support/soak_locust.py --headless ...` against a loopback site;
ARMADA_SOAK_PLAN names a JSON file with the accounts to use ({"users": [{"username", "token",
"bot"}], "code": a Galaxy bot's source}) and ARMADA_SOAK_OUT the JSON file this writes at the end:
every answer's status counted, and the first few 5xx (or connection failures) with their path.
A 4xx is an answer (a limit reached, a duplicate upload refused); only 5xx and no answer count
against the site.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from locust import HttpUser, between, events, task

PLAN = json.loads(Path(os.environ["ARMADA_SOAK_PLAN"]).read_text())
USERS: list[dict[str, Any]] = PLAN["users"]
STATUS: Counter[str] = Counter()
BAD: list[str] = []
MATCHES: list[int] = []
_lock = threading.Lock()
_seats = itertools.count()


@events.request.add_listener
def _count(request_type: str, name: str, response: Any, exception: Any, **_: Any) -> None:
    status = getattr(response, "status_code", 0) or 0
    with _lock:
        STATUS[str(status)] += 1
        if (status == 0 or status >= 500) and len(BAD) < 50:
            BAD.append(f"{request_type} {name}: {status or exception}")


@events.quitting.add_listener
def _write(**_: Any) -> None:
    Path(os.environ["ARMADA_SOAK_OUT"]).write_text(json.dumps({"status": dict(STATUS), "bad": BAD}))


class Account(HttpUser):
    """One of the plan's accounts (each Locust user takes the next one)."""

    abstract = True

    def on_start(self) -> None:
        self.me = USERS[next(_seats) % len(USERS)]
        self.auth = {"Authorization": f"Token {self.me['token']}", "Accept": "application/json"}
        self.uploads = 0

    def get(self, path: str, name: str, auth: bool = False) -> Any:
        with self.client.get(path, name=name, headers=self.auth if auth else {}, catch_response=True) as answer:
            if answer.status_code >= 500 or answer.status_code == 0:
                answer.failure(f"{answer.status_code}")
            else:
                answer.success()
            return answer

    def match_id(self) -> int | None:
        with _lock:
            return random.choice(MATCHES) if MATCHES else None


class Visitor(Account):
    """Someone browsing the site: home, ladders, bots, matches, users, the SDK page."""

    weight = 3
    wait_time = between(0.5, 2.0)

    @task(3)
    def ladder(self) -> None:
        self.get("/ladder/galaxy/", "/ladder/galaxy/")

    @task(2)
    def home(self) -> None:
        self.get("/", "/")

    @task(2)
    def match_page(self) -> None:
        match = self.match_id()
        if match is not None:
            self.get(f"/matches/{match}/", "/matches/[id]/")

    @task(1)
    def bot_page(self) -> None:
        self.get(f"/bots/{random.choice(USERS)['bot']}/", "/bots/[id]/")

    @task(1)
    def other_pages(self) -> None:
        self.get(random.choice(["/ladder/mothership/", "/sdk/", f"/users/{random.choice(USERS)['username']}/"]),
                 "/(mothership, sdk, user)")


class Reader(Account):
    """A client of the API: the ladder, the matches, a match, its replay, the bots, itself."""

    weight = 3
    wait_time = between(0.5, 2.0)

    @task(3)
    def matches(self) -> None:
        answer = self.get("/api/matches/", "/api/matches/", auth=True)
        if answer.status_code == 200:
            ids = [row["id"] for row in answer.json().get("results", [])]
            with _lock:
                MATCHES[:] = ids or MATCHES

    @task(3)
    def ladder(self) -> None:
        self.get("/api/ladder/galaxy/", "/api/ladder/galaxy/", auth=True)

    @task(2)
    def match(self) -> None:
        match = self.match_id()
        if match is not None:
            self.get(f"/api/matches/{match}/", "/api/matches/[id]/", auth=True)

    @task(1)
    def replay(self) -> None:
        match = self.match_id()
        if match is not None:
            self.get(f"/api/matches/{match}/replay/", "/api/matches/[id]/replay/", auth=True)

    @task(1)
    def bots(self) -> None:
        self.get("/api/bots/", "/api/bots/", auth=True)
        self.get("/api/me/", "/api/me/", auth=True)


class Uploader(Account):
    """A competitor uploading a new version of its bot now and then (each different)."""

    weight = 1
    wait_time = between(40.0, 80.0)

    @task
    def upload(self) -> None:
        self.uploads += 1
        code = f"{PLAN['code']}\n# soak upload {self.me['username']} {self.uploads}\n".encode()
        with self.client.post(f"/api/bots/{self.me['bot']}/versions/", name="/api/bots/[id]/versions/",
                              headers=self.auth, files={"file": ("main.py", code)}, catch_response=True) as answer:
            if answer.status_code >= 500 or answer.status_code == 0:
                answer.failure(f"{answer.status_code}")
            else:
                answer.success()


class Challenger(Account):
    """A competitor challenging another bot now and then (limits answer 429: an answer)."""

    weight = 1
    wait_time = between(30.0, 60.0)

    @task
    def challenge(self) -> None:
        opponent = random.choice([u["bot"] for u in USERS if u["bot"] != self.me["bot"]])
        with self.client.post("/api/challenges/", name="/api/challenges/", headers=self.auth,
                              json={"bot": self.me["bot"], "opponent": opponent}, catch_response=True) as answer:
            if answer.status_code >= 500 or answer.status_code == 0:
                answer.failure(f"{answer.status_code}")
            else:
                answer.success()
