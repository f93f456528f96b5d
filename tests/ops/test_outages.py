"""The site while a service it needs is down (issue 20), in-process: a database that cannot be reached
answers 503 with a message, a Redis that is down makes the cache empty instead of failing requests,
an upload whose validation cannot be queued is kept and answers 503 saying so. (The real outages,
against live processes: tests/live/test_faults_live.py.)"""

from __future__ import annotations

import pytest
from django.db.utils import OperationalError

from tests.support.localsite import free_port

pytestmark = pytest.mark.django_db


def test_a_view_that_cannot_reach_the_database_answers_503_with_a_message(client, monkeypatch):
    def unreachable(*args, **kwargs):
        raise OperationalError("connection to server at 127.0.0.1, port 5432 failed: Connection refused")

    monkeypatch.setattr("armada_web.api.ladder.ladder", unreachable)
    monkeypatch.setattr("armada_web.pages.ladder_views.ladder", unreachable)
    answer = client.get("/api/ladder/galaxy/")
    assert answer.status_code == 503 and answer["Retry-After"] == "30"
    assert answer.json() == {"detail": "the database is unreachable for a moment; try again in a minute"}
    page = client.get("/ladder/galaxy/")
    assert page.status_code == 503 and b"try again in a minute" in page.content
    assert b"Traceback" not in page.content and b"5432" not in page.content  # nothing of the internals


def test_a_redis_that_is_down_makes_an_empty_cache_not_a_failed_request(settings, api):
    """Throttles and the log-in failure counts live in the cache: with Redis down they count nothing
    (and say so in the log) while every request still answers."""
    from django.core.cache import cache

    settings.CACHES = {"default": {"BACKEND": "armada_web.storage.resilient_cache.ResilientRedisCache",
                                   "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
    assert cache.get("anything", "fallback") == "fallback"
    cache.set("key", 1)
    assert cache.add("key", 2) is True and cache.get_many(["key"]) == {} and cache.incr("key") == 1
    assert cache.delete("key") is False
    user_api = api()
    for _ in range(3):
        assert user_api.get("/api/ladder/galaxy/").status_code == 200  # throttled views: counted in the cache
        assert user_api.get("/api/me/").status_code == 200
    bad = user_api.post("/api/tokens/", {"username": user_api.user.username, "password": "wrong", "name": "x"},
                        format="json")
    assert bad.status_code in (400, 401, 403)  # a wrong password is refused, not a 500


@pytest.mark.django_db(transaction=True)
def test_an_upload_whose_validation_cannot_be_queued_is_kept_and_answers_503(api, monkeypatch):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from kombu.exceptions import OperationalError as QueueDown

    from armada_web.bots.models import BotVersion

    user_api = api()
    bot = user_api.post("/api/bots/", {"name": "queued-later", "game": "galaxy"}, format="json").json()

    def down(version_id, countdown=0):
        raise QueueDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr("armada_web.bots.services.queue_validation", down)
    answer = user_api.post(f"/api/bots/{bot['id']}/versions/",  # committed for real: the send runs and fails
                           {"file": SimpleUploadedFile("main.py", b"print('hello')\n")}, format="multipart")
    assert answer.status_code == 503, answer.content
    detail = answer.json()["detail"]
    assert "version 1 was saved" in detail and "validated by itself once the queue is back" in detail
    version = BotVersion.objects.get(bot_id=bot["id"])
    assert version.status == "pending" and version.queued is not None  # kept: the reaper will send it
