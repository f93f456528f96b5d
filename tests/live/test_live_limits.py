"""Against a live site (gunicorn with several worker processes, as `make up` serves, and Redis):
throttles meet parallel clients whatever X-Forwarded-For they send, a proxy the deployment
trusts is believed, the login-failure limit holds across processes, raw Latin-1 and 0xff bytes in
an Authorization header are a 401, and 30 parallel uploads are all answered (issue 20).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.fixtures import PASSWORD

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def parallel(n: int, call: Callable[[int], Any]) -> list[Any]:
    """`call(i)` from n threads released together; each result or exception."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = call(i)
        except BaseException as exc:  # reported to the test
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)
    return results


def request(site: Any, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """One request on its own connection; (status, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", site.port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def codes(results: list[Any]) -> Counter[Any]:
    return Counter(r[0] if isinstance(r, tuple) else type(r).__name__ for r in results)


def away_from_the_hour() -> None:
    """Throttles count per hour here: start a few seconds away from an hour's end (the sliding
    window's estimate changes there)."""
    left = 3600 - time.time() % 3600
    if left < 20:
        time.sleep(left + 1)


def test_parallel_clients_with_any_forwarded_address_meet_the_anonymous_throttle(live_web):
    site = live_web(workers=3, THROTTLE_ANON="20/hour")
    away_from_the_hour()
    results = parallel(8, lambda i: [request(site, "GET", "/api/bots/", headers={
        "X-Forwarded-For": f"10.0.{i}.{j}"}) for j in range(6)])
    flat = [r for rs in results for r in rs]
    assert codes(flat) == {200: 20, 429: 28}  # 48 requests from "48 addresses": one client, 20 served
    refused = next(json.loads(body) for status, body in flat if status == 429)
    assert refused["detail"].startswith("too many requests; try again in")


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_count(live_web):
    site = live_web(workers=3, THROTTLE_ANON="20/hour", ARMADA_TRUSTED_PROXIES="127.0.0.1")
    away_from_the_hour()
    results = parallel(8, lambda i: [request(site, "GET", "/api/bots/", headers={
        "X-Forwarded-For": f"10.1.0.{i}"}) for _ in range(10)])
    assert codes([r for rs in results for r in rs]) == {200: 80}  # eight clients, ten requests each
    # What a client writes in front of the proxy's own entry is not believed: one client, 20 served.
    spoofed = parallel(6, lambda i: [request(site, "GET", "/api/bots/", headers={
        "X-Forwarded-For": f"{uuid.uuid4().hex[:6]}, 172.16.{i}.{j}, 10.2.0.1"}) for j in range(5)])
    assert codes([r for rs in spoofed for r in rs]) == {200: 20, 429: 10}


def test_parallel_wrong_passwords_across_processes_check_no_more_than_the_limit(live_web, make_user):
    site = live_web(workers=3, ARMADA_LOGIN_FAILURES_PER_USER="5", ARMADA_LOGIN_FAILURES_PER_IP="1000")
    make_user("target")

    def guess(i: int) -> tuple[int, bytes]:
        body = json.dumps({"username": "target", "password": f"wrong-{i}", "name": "x"}).encode()
        return request(site, "POST", "/api/tokens/", body, {"Content-Type": "application/json"})

    assert codes(parallel(20, guess)) == {400: 5, 429: 15}
    body = json.dumps({"username": "target", "password": PASSWORD, "name": "x"}).encode()
    assert request(site, "POST", "/api/tokens/", body, {"Content-Type": "application/json"})[0] == 429


@pytest.mark.parametrize("raw", [b"Token \xe9\xe9\xe9", b"Token \xff\xfe", b"Token abc\xff", b"\xff\xff"])
def test_raw_latin1_and_0xff_bytes_in_the_authorization_header_are_a_401(live_web, raw):
    """The bytes as a client sends them on the wire (a test client cannot send these)."""
    import socket

    site = live_web(workers=1)
    for path in (b"/api/me/", b"/api/bots/"):
        with socket.create_connection(("127.0.0.1", site.port), timeout=30) as sock:
            sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + raw
                         + b"\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        status = int(answer.split(b" ", 2)[1])
        if raw.startswith(b"Token"):
            assert status == 401, answer[:300]
            assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == {"detail": "Invalid token."}
        else:  # not a token at all: anonymous
            assert status == (401 if path == b"/api/me/" else 200), answer[:300]


def multipart(data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="main.py"\r\n'
            "Content-Type: text/x-python\r\n\r\n").encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def test_thirty_parallel_uploads_are_all_answered(live_web, make_user):
    """Accepted ones, refused before the body is read (not the owner's bot: 403) and refused as far too
    large: every client reads its answer; none sees a reset connection or a broken pipe."""
    from armada_web.accounts.services import create_token
    from armada_web.bots.services import create_bot

    site = live_web(workers=3, ARMADA_UPLOADS_PER_HOUR="100", ARMADA_UPLOAD_MAX_BYTES="1048576")  # 1 MiB
    users = [make_user(f"u{i}") for i in range(10)]
    secrets = [create_token(user=u, name="t")[1] for u in users]
    bots = [create_bot(user=u, name=f"bot-{i}", game="galaxy").pk for i, u in enumerate(users)]

    def upload(i: int, size: int, bot: int, secret: str) -> tuple[int, bytes]:
        body, kind = multipart((f"# {i}\n" + "x = 1\n" * (size // 6)).encode())
        return request(site, "POST", f"/api/bots/{bot}/versions/", body,
                       {"Content-Type": kind, "Authorization": f"Token {secret}"})

    results = parallel(30, lambda i: upload(i, 200_000, bots[i % 10], secrets[i % 10]))
    assert codes(results) == {201: 30}
    not_theirs = parallel(30, lambda i: upload(i, 1_000_000, bots[(i + 1) % 10], secrets[i % 10]))
    assert codes(not_theirs) == {403: 30}
    too_large = parallel(30, lambda i: upload(i, 4_200_000, bots[i % 10], secrets[i % 10]))
    assert codes(too_large) == {413: 30}
    assert all(b"upload too large" in body for _status, body in too_large)


def post_declaring(site: Any, path: str, declared: int, headers: bytes = b"", chunks: int = 16) -> tuple[bytes, float]:
    """A POST that declares `declared` bytes of body and sends `chunks` x 64 KiB of it (or what the
    server takes before it answers); the whole answer and the seconds it took."""
    import socket

    with socket.create_connection(("127.0.0.1", site.port), timeout=60) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode() + headers
                     + f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {declared}\r\n\r\n".encode()
                     + b'--b\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n')
        began = time.monotonic()
        try:
            for _chunk in range(chunks):
                sock.sendall(b"x" * 65536)
        except OSError:  # the server answered and closed: the rest is not wanted
            pass
        answer = b""
        while chunk := sock.recv(65536):  # the server closes the connection: it reads no more of the body
            answer += chunk
    return answer, time.monotonic() - began


@pytest.mark.parametrize("declared", [2147483648, 3 * 1024 * 1024])
def test_a_large_body_declared_to_a_form_is_answered_at_once_and_never_read(live_web, declared):
    """Anyone could make a form's address (here the login page, with a CSRF cookie) read a body of
    gigabytes to a temporary file before any check, and hold a web thread while it came: now the 413
    comes before the body is read, and the connection closes."""
    site = live_web(workers=1)
    connection = http.client.HTTPConnection("127.0.0.1", site.port, timeout=30)
    connection.request("GET", "/accounts/login/")
    cookie = connection.getresponse().headers["Set-Cookie"].split(";", 1)[0]
    connection.close()
    answer, seconds = post_declaring(site, "/accounts/login/", declared, f"Cookie: {cookie}\r\n".encode(), chunks=1)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert f"request too large: its body is {declared:,} bytes".encode() in answer
    assert seconds < 5


def test_a_refused_upload_sent_slowly_holds_a_web_thread_for_drain_s_at_most(live_web, make_user):
    """A refusal's unread body is read so the client sees the answer, but a client that declares a
    body and sends little of it is cut off after DRAIN_S (a trial held a thread open past 90 s)."""
    from armada_web.bots.services import create_bot
    from armada_web.web.inputs import DRAIN_S

    site = live_web(workers=1)
    bot = create_bot(user=make_user("owner"), name="theirs", game="galaxy")
    answer, seconds = post_declaring(site, f"/api/bots/{bot.pk}/versions/", 1024 * 1024, chunks=0)  # no token
    assert answer.startswith(b"HTTP/1.1 401 "), answer[:200]
    assert b"Connection: close" in answer and DRAIN_S - 1 < seconds < DRAIN_S + 10


def test_a_body_sent_in_chunks_is_a_411_saying_so(live_web):
    """An API trial: gunicorn passes a chunked body on without a Content-Length, and Django read it as
    empty: a bot posted so was refused with "name: This field is required"."""
    import socket

    site = live_web(workers=1)
    body = b'{"name": "abc", "game": "galaxy"}'
    request = (b"POST /api/bots/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n" + f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n")
    with socket.create_connection(("127.0.0.1", site.port), timeout=30) as sock:
        sock.sendall(request)  # one write: the whole request is sent before the answer comes
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 411 "), answer[:200]
    assert b"does not read a body sent in chunks" in answer
