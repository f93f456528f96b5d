"""Limits that hold (issue 20): every per-user and per-pair limit, met by parallel requests.

Each test sends its requests from threads released together by a barrier, each thread with its
own database connection and real transactions (PostgreSQL under CI, the SQLite file locally),
through the API as a client would, and counts what was accepted: exactly the limit. Before,
12 parallel challenges of a pair were all accepted (limit 5), and deleting the bot that counted
the hour's uploads freed the upload limit.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from rest_framework.test import APIClient

from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def parallel(n: int, call: Callable[[int], Any]) -> list[Any]:
    """`call(i)` for i in 0..n-1 from n threads started at once; each result or exception, in order."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = call(i)
        except BaseException as exc:  # reported to the test, never lost in a thread
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return results


def statuses(responses: list[Any]) -> Counter[int]:
    for response in responses:
        assert not isinstance(response, BaseException), response
    return Counter(response.status_code for response in responses)


def token_client(api: Any, user: Any) -> APIClient:
    client = api(user)
    client.raise_request_exception = False
    return client


@pytest.fixture(autouse=True)
def _queues(armada):
    """Matches made here go to the test's unconsumed queue (dropped after the test)."""
    queue = armada.current.validation_queue
    armada(matches_queue=queue, challenges_queue=queue)


def test_twelve_parallel_challenges_of_one_pair_meet_the_pair_limit(api, make_user, valid_version, armada):
    from armada_web.matches.models import Match

    armada(challenges_per_pair_hour=5, challenges_per_hour=100)
    alice, bob = make_user("alice"), make_user("bob")
    mine, theirs = valid_version(alice, "mine").bot, valid_version(bob, "theirs").bot
    clients = [token_client(api, alice) for _ in range(12)]
    body = {"bot": mine.pk, "opponent": theirs.pk}
    answers = parallel(12, lambda i: clients[i].post("/api/challenges/", body, format="json"))
    assert statuses(answers) == {201: 5, 429: 7}
    assert all("5 per hour" in a.json()["detail"] for a in answers if a.status_code == 429)
    assert Match.objects.count() == 5
    # The pair is a pair whichever side asks: bob's challenge of alice's bot is refused too.
    answer = token_client(api, bob).post("/api/challenges/", {"bot": theirs.pk, "opponent": mine.pk}, format="json")
    assert answer.status_code == 429


def test_parallel_challenges_meet_the_per_user_limit(api, make_user, valid_version, armada):
    from armada_web.matches.models import Match

    armada(challenges_per_pair_hour=100, challenges_per_hour=3)
    alice = make_user("alice")
    mine = valid_version(alice, "mine").bot
    opponents = [valid_version(make_user(f"rival{i}"), f"rival{i}").bot for i in range(4)]
    clients = [token_client(api, alice) for _ in range(8)]
    answers = parallel(8, lambda i: clients[i].post(
        "/api/challenges/", {"bot": mine.pk, "opponent": opponents[i % 4].pk}, format="json"))
    assert statuses(answers) == {201: 3, 429: 5}
    assert Match.objects.filter(requested_by=alice).count() == 3


def test_parallel_uploads_meet_the_hourly_limit_and_deleting_the_bots_frees_nothing(api, make_user, armada):
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import create_bot

    armada(uploads_per_hour=5)
    owner = make_user("uploader")
    bots = [create_bot(user=owner, name=f"up-{i}", game="galaxy") for i in range(2)]
    clients = [token_client(api, owner) for _ in range(12)]

    def upload(i: int) -> Any:
        code = f"print({i})\n".encode()
        return clients[i].post(f"/api/bots/{bots[i % 2].pk}/versions/",
                               {"file": SimpleUploadedFile("main.py", code)}, format="multipart")

    answers = parallel(12, upload)
    assert statuses(answers) == {201: 5, 429: 7}
    assert BotVersion.objects.count() == 5
    for bot in bots:
        assert clients[0].delete(f"/api/bots/{bot.pk}/").status_code == 204
    fresh = create_bot(user=owner, name="up-fresh", game="galaxy")
    answer = clients[0].post(f"/api/bots/{fresh.pk}/versions/", {"file": SimpleUploadedFile("main.py", b"x = 1\n")},
                             format="multipart")
    assert answer.status_code == 429  # the five uploads of the deleted bots still count this hour
    assert "5 uploads per hour" in answer.json()["detail"]


def test_a_refused_upload_takes_its_count_back(api, make_user, armada):
    """An upload refused after it was counted (the same code as the newest version) counts nothing."""
    from armada_web.accounts import limits
    from armada_web.bots.services import UPLOAD, create_bot

    armada(uploads_per_hour=2)
    owner = make_user("uploader")
    bot = create_bot(user=owner, name="twice", game="galaxy")
    client = token_client(api, owner)
    for code, expected in ((b"x = 1\n", 201), (b"x = 1\n", 400), (b"x = 1\n", 400), (b"y = 2\n", 201),
                           (b"z = 3\n", 429)):
        answer = client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("main.py", code)},
                             format="multipart")
        assert answer.status_code == expected, answer.content
    team = limits.team_key(bot.team_id)
    assert len(limits.recent(action=UPLOAD, keys=[team], window_s=3600)[team]) == 2


def test_parallel_bot_creations_meet_the_per_game_limit(api, make_user, armada):
    from armada_web.bots.models import Bot

    armada(max_bots_per_game=3)
    owner = make_user("maker")
    clients = [token_client(api, owner) for _ in range(8)]
    answers = parallel(8, lambda i: clients[i].post("/api/bots/", {"name": f"bot-{i}", "game": "galaxy"},
                                                    format="json"))
    assert statuses(answers) == {201: 3, 409: 5}  # a limit of objects held: 409
    assert Bot.objects.filter(owner=owner).count() == 3


def test_parallel_token_creations_meet_the_token_limit(make_user, armada):
    from armada_web.accounts.models import ApiToken

    armada(max_tokens=4, login_failures_per_ip=100, login_failures_per_user=100)
    owner = make_user("holder")
    clients = [APIClient() for _ in range(10)]
    body = {"username": "holder", "password": PASSWORD}
    answers = parallel(10, lambda i: clients[i].post("/api/tokens/", {**body, "name": f"t{i}"}, format="json"))
    assert statuses(answers) == {201: 4, 400: 6}
    assert ApiToken.objects.filter(user=owner).count() == 4


def test_parallel_wrong_passwords_check_no_more_than_the_limit(make_user, armada, monkeypatch):
    from django.contrib.auth import backends

    armada(login_failures_per_user=10, login_failures_per_ip=1000)
    make_user("target")
    checked = []
    real = backends.ModelBackend.authenticate

    def counted(self, request, username=None, password=None, **kwargs):
        checked.append(password)
        return real(self, request, username=username, password=password, **kwargs)

    monkeypatch.setattr(backends.ModelBackend, "authenticate", counted)
    clients = [APIClient() for _ in range(30)]
    answers = parallel(30, lambda i: clients[i].post(
        "/api/tokens/", {"username": "target", "password": f"guess-{i}", "name": "x"}, format="json"))
    assert statuses(answers) == {400: 10, 429: 20}
    assert len(checked) == 10  # thirty parallel guesses, ten passwords checked
    right = APIClient().post("/api/tokens/", {"username": "target", "password": PASSWORD, "name": "x"}, format="json")
    assert right.status_code == 429 and "for this username" in right.json()["detail"]


def test_a_right_password_does_not_count_as_a_failure(make_user, armada):
    armada(login_failures_per_user=2, login_failures_per_ip=1000)
    make_user("regular")
    client = APIClient()
    body = {"username": "regular", "password": PASSWORD, "name": "x"}
    for _ in range(5):
        assert client.post("/api/tokens/", body, format="json").status_code == 201
    wrong = {**body, "password": "nope"}
    assert [client.post("/api/tokens/", wrong, format="json").status_code for _ in range(3)] == [400, 400, 429]
