"""A JSON request body with a field its operation does not take is refused with a 400 naming it
(and the fields it takes), and nothing is done: a misspelt optional field is not silently dropped
(DRF's default, which a new user's trial found: `POST /api/bots/` with `"colour"` made the bot,
with `"nme"` said only "name: This field is required"). The schema states it too."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from armada_web.api import fields
from armada_web.bots.models import Bot

pytestmark = pytest.mark.django_db


def test_an_unknown_field_is_refused_by_name_and_nothing_is_made(api):
    client = api()
    answer = client.post("/api/bots/", {"name": "rover", "game": "galaxy", "colour": "red"}, format="json")
    assert answer.status_code == 400
    assert answer.json() == {"detail": "unknown field 'colour' (this request takes: name, game, description, team)"}
    assert not Bot.objects.filter(name="rover").exists()
    typo = client.post("/api/bots/", {"nme": "rover", "game": "galaxy"}, format="json").json()["detail"]
    assert "unknown field 'nme'" in typo
    made = client.post("/api/bots/", {"name": "rover", "game": "galaxy"}, format="json")
    assert made.status_code == 201  # the same body without it is taken


def test_many_unknown_fields_are_listed_briefly():
    names = {f"extra{n:02d}": 1 for n in range(12)} | {"x" * 100: 1}
    body = fields.Body(data=names)
    assert not body.is_valid()
    message = str(body.errors["non_field_errors"][0])
    assert message.startswith("unknown fields 'extra00', 'extra01', 'extra02', 'extra03', 'extra04' and 8 more")
    assert "x" * 100 not in message and len(message) < 200


def test_every_json_body_refuses_unknown_fields_and_the_schema_says_so():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    bodies = {}
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            content = operation.get("requestBody", {}).get("content", {}) if isinstance(operation, dict) else {}
            if "application/json" in content:
                bodies[(method, path)] = content["application/json"]["schema"]["$ref"].rpartition("/")[2]
    assert len(bodies) >= 12 and ("post", "/api/bots/") in bodies
    assert {name for name in bodies.values() if components[name].get("additionalProperties") is not False} == set()
    # and each serializer behind them refuses one (every JSON body's serializer is a Body)
    for cls in fields.Body.__subclasses__():
        body = cls(data={"surely_not_a_field": 1}, partial=True)
        assert not body.is_valid(), cls
        assert "unknown field 'surely_not_a_field'" in str(body.errors["non_field_errors"][0]), cls
    assert len(fields.Body.__subclasses__()) == len(set(bodies.values()))
