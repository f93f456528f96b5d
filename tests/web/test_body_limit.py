"""A request's body is refused by its declared size before anything reads it (`pages.errors.BodyLimit`):
the CSRF middleware read a whole form's body to find its token (a file part to a temporary
file), so anyone could make a login form's address read and store gigabytes. A form's or JSON's
address takes DATA_UPLOAD_MAX_MEMORY_SIZE and a little; an upload's address takes an upload's
limit, from a signed-in user (the page) or an API client (the API reads no body before it
authenticates)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from armada_web.web.inputs import ENVELOPE_BYTES

pytestmark = pytest.mark.django_db

MIB = 1024 * 1024


def form_limit() -> int:
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE) + ENVELOPE_BYTES


def multipart(size: int) -> tuple[bytes, str]:
    head = b'--b\r\nContent-Disposition: form-data; name="file"; filename="main.py"\r\n\r\n'
    return head + b"#" * size + b"\r\n--b--\r\n", "multipart/form-data; boundary=b"


def test_a_form_past_its_limit_is_refused_before_it_is_read(make_user):
    client = Client(enforce_csrf_checks=True)  # as a browser: the CSRF middleware looks for the token
    body, kind = multipart(form_limit())
    answer = client.post("/accounts/login/", data=body, content_type=kind)
    assert answer.status_code == 413
    assert f"request too large: its body is {len(body):,} bytes, and this address takes at most {form_limit():,}" \
        in answer.content.decode()
    small, kind = multipart(1000)
    assert client.post("/accounts/login/", data=small, content_type=kind).status_code == 403  # no CSRF token


def test_the_api_answers_json(api):
    answer = api().post("/api/challenges/", data=b"{" + b" " * form_limit() + b"}", content_type="application/json")
    assert answer.status_code == 413
    assert answer.json()["detail"].startswith("request too large: its body is ")


def test_an_upload_address_takes_an_upload_from_who_may_upload(make_user, api):
    from armada_web.bots.services import create_bot

    settings.ARMADA = settings.ARMADA.with_(upload_max_bytes=4 * MIB)
    owner = make_user("owner")
    bot = create_bot(user=owner, name="big", game="galaxy")
    body, kind = multipart(3 * MIB)  # past a form's limit, within an upload's
    anonymous = Client().post(f"/bots/{bot.pk}/upload/", data=body, content_type=kind)
    assert anonymous.status_code == 413 and "this address takes at most" in anonymous.content.decode()
    signed_in = Client()
    signed_in.force_login(owner)
    answer = signed_in.post(f"/bots/{bot.pk}/upload/", data=body, content_type=kind)
    assert answer.status_code == 302 and answer["Location"] == f"/bots/{bot.pk}/versions/1/"  # uploaded
    over, kind = multipart(4 * MIB + ENVELOPE_BYTES)
    refused = signed_in.post(f"/bots/{bot.pk}/upload/", data=over, content_type=kind)
    assert refused.status_code == 413 and "upload too large (the request)" in refused.content.decode()
    assert f'<a href="/bots/{bot.pk}/" id="back">Back to the bot</a>' in refused.content.decode()  # not only home
    by_api = api(owner).post(f"/api/bots/{bot.pk}/versions/", data=over, content_type=kind)
    assert by_api.status_code == 413 and by_api.json()["detail"].startswith("upload too large (the request)")


def test_a_body_read_through_paced_input_times_out_at_its_deadline():
    """On gunicorn every body is read through PacedInput: a client that declares a body and stops
    sending holds a web thread until BODY_GRACE_S plus the body at BODY_PACE, no longer; the view's
    read then fails (UnreadablePostError in Django), answered 408 (`BodyLimit.process_exception`)."""
    import socket
    import time

    from armada_web.web.inputs import BODY_GRACE_S, BODY_PACE, paced

    server, client = socket.socketpair()
    try:
        client.sendall(b"12345")
        seen: dict[str, object] = {}

        def app(environ, start_response):
            stream = environ["wsgi.input"]
            seen["deadline"] = stream.deadline - time.monotonic()
            seen["first"] = stream.read(5)
            stream.hurry(0.3)  # (instead of waiting out BODY_GRACE_S)
            began = time.monotonic()
            try:
                stream.read(5)
            except TimeoutError:
                seen["waited"] = time.monotonic() - began
            return [b""]

        reader = server.makefile("rb")
        paced(app)({"gunicorn.socket": server, "CONTENT_LENGTH": str(BODY_PACE * 2), "wsgi.input": reader}, None)
        assert seen["first"] == b"12345" and 0.2 < seen["waited"] < 2  # type: ignore[operator]
        assert BODY_GRACE_S + 1.5 < seen["deadline"] <= BODY_GRACE_S + 2  # type: ignore[operator]
        assert server.gettimeout() is None  # as before, for the answer's writes
        client.sendall(b"a\nb\n")
        client.shutdown(socket.SHUT_WR)
        lines = server.makefile("rb")
        assert list(paced(lambda environ, _start: list(environ["wsgi.input"]))(
            {"gunicorn.socket": server, "CONTENT_LENGTH": "4", "wsgi.input": lines}, None)) == [b"a\n", b"b\n"]
    finally:
        server.close()
        client.close()


def test_a_body_that_did_not_arrive_in_time_is_a_408(api, make_user):
    from unittest import mock

    from django.http import UnreadablePostError

    client = api(make_user("slow"))
    with mock.patch("armada_web.api.bots.BotViewSet.create", side_effect=UnreadablePostError("timed out")):
        answer = client.post("/api/bots/", {"name": "slow-bot", "game": "galaxy"}, format="json")
    assert answer.status_code == 408 and answer.armada_unread  # its body is not read on
    assert answer.json() == {"detail": "the request's body did not arrive in time: send it again"}


class _Socket:
    def settimeout(self, seconds: float | None) -> None:
        pass


@pytest.mark.parametrize("path", ["/accounts/login/", "/api/bots/"])
def test_a_body_too_late_is_a_408_whoever_met_the_failed_read(make_user, path):
    """A review: on a page the CSRF check read the body, took the failed read for a missing token and
    answered 403 "Form expired"; a session's API request saw an empty body (400)."""
    import io

    from armada_web.web.inputs import PacedInput

    api = path.startswith("/api/")
    body = '{"name": "slow-bot"}' if api else "username=a"
    late = PacedInput(io.BytesIO(body.encode()), _Socket(), len(body))
    late.hurry(-1)  # its deadline has passed
    client = Client(enforce_csrf_checks=True)
    if api:
        client.force_login(make_user("slow"))
    client.cookies["csrftoken"] = "a" * 32  # a CSRF cookie: the check then reads the form for its token
    answer = client.post(path, data=body, content_type="application/json" if api else
                         "application/x-www-form-urlencoded", **{"wsgi.input": late})
    assert answer.status_code == 408 and late.expired
    assert "the request&#x27;s body did not arrive in time" in answer.content.decode() or \
        answer.json() == {"detail": "the request's body did not arrive in time: send it again"}
