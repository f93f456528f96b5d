"""/healthz reports the database, Redis, the storage and the Docker engine (the role's checks); the
home page renders."""

import pytest

from tests.support.services import require_docker, require_redis

pytestmark = pytest.mark.django_db


def test_home_page(client):
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "Mothership Down" in body and "Galaxy" in body


def test_healthz_all_ok(client):
    require_redis()
    require_docker()
    response = client.get("/healthz")
    data = response.json()
    assert response.status_code == 200, data
    assert data["status"] == "ok"
    assert data["failed"] == []
    assert set(data["checks"]) == {"database", "redis", "storage", "docker"}
    assert all(check["ok"] for check in data["checks"].values())
    assert data["checks"]["storage"]["detail"].startswith("local folder ")


def test_healthz_runs_the_checks_of_its_role(client, armada):
    """The web container has no Docker socket: its role's list leaves the engine to the workers."""
    armada(health_checks=("database", "storage"))
    data = client.get("/healthz").json()
    assert set(data["checks"]) == {"database", "storage"} and data["status"] == "ok"


def test_healthz_names_the_failed_service(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    data = response.json()
    assert response.status_code == 503
    assert data["status"] == "fail"
    assert "redis" in data["failed"]
    assert data["checks"]["redis"]["ok"] is False
    assert "Connection" in data["checks"]["redis"]["detail"]
    assert data["checks"]["database"]["ok"] is True


def test_healthz_reports_docker_failure(client, monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    data = client.get("/healthz").json()
    assert data["checks"]["docker"]["ok"] is False
    assert "docker" in data["failed"]


def test_healthz_is_get_only(client):
    assert client.post("/healthz").status_code == 405


def test_healthz_shows_its_details_only_to_operators(client, settings, make_user):
    """A failed check's text can name internal hosts and paths: a visitor from elsewhere, or one
    through a proxy, reads which checks failed and the error's kind; the machine itself and staff
    read the whole text."""
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # a failure with a detail
    remote = client.get("/healthz", REMOTE_ADDR="203.0.113.9").json()
    proxied = client.get("/healthz", HTTP_X_FORWARDED_FOR="203.0.113.9").json()
    for data in (remote, proxied):
        assert data["status"] == "fail" and data["failed"] == ["redis"]
        assert data["checks"]["redis"]["ok"] is False and "ms" in data["checks"]["redis"]
        assert data["checks"]["redis"]["detail"] == "ConnectionError (the details are shown to operators only)"
        assert {check["detail"] for name, check in data["checks"].items() if name != "redis"} == {"ok"}
        assert "127.0.0.1" not in str(data) and "local folder" not in str(data)
    assert "Connection" in client.get("/healthz").json()["checks"]["redis"]["detail"]  # from 127.0.0.1
    client.force_login(make_user("op", is_staff=True))
    assert "Connection" in client.get("/healthz", REMOTE_ADDR="203.0.113.9").json()["checks"]["redis"]["detail"]


def test_healthz_hides_details_from_a_trusted_proxy_that_sets_no_header(client, settings, armada):
    """A reverse proxy on this machine named in ARMADA_TRUSTED_PROXIES forwards every visitor from
    127.0.0.1; without an X-Forwarded-For of its own, its requests are still a visitor's."""
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    assert "Connection" in client.get("/healthz").json()["checks"]["redis"]["detail"]  # no proxy named
    armada(trusted_proxies=("127.0.0.1",))
    detail = client.get("/healthz").json()["checks"]["redis"]["detail"]
    assert detail == "ConnectionError (the details are shown to operators only)"
