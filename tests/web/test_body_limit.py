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
    by_api = api(owner).post(f"/api/bots/{bot.pk}/versions/", data=over, content_type=kind)
    assert by_api.status_code == 413 and by_api.json()["detail"].startswith("upload too large (the request)")
