"""`/api/schema/` is generated once per process and kept (api/schema_view.py): generating it took
about 60 ms of CPU a request, for anyone, within the general throttles only."""

from __future__ import annotations

from unittest import mock

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from armada_web.api.schema_view import SchemaView

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh() -> None:
    SchemaView.forget()
    yield
    SchemaView.forget()


def test_the_schema_is_generated_once_whatever_the_query():
    real = SchemaGenerator.get_schema
    with mock.patch.object(SchemaGenerator, "get_schema", autospec=True, side_effect=real) as generate:
        first = APIClient().get("/api/schema/", {"format": "json"})
        again = APIClient().get("/api/schema/", {"format": "json", "lang": "de", "version": "7"})
        yaml = APIClient().get("/api/schema/")
    assert generate.call_count == 1
    assert first.status_code == again.status_code == yaml.status_code == 200
    assert first.content == again.content
    schema = first.json()
    assert schema["info"]["version"] == "1"  # the site's, not the query's
    assert "/api/bots/" in schema["paths"] and "/api/schema/" not in schema["paths"]
    assert b"/api/bots/{id}/versions/:" in yaml.content
    assert first["Content-Disposition"].startswith('inline; filename="Armada API')


def test_the_schema_is_the_same_for_every_client(make_user):
    anonymous = APIClient().get("/api/schema/", {"format": "json"}).content
    SchemaView.forget()
    client = APIClient()
    client.force_authenticate(make_user("sam"))
    signed_in = client.get("/api/schema/", {"format": "json"}).content
    assert signed_in == anonymous
