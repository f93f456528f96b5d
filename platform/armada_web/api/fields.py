"""Small pieces the API's serializers share."""

from __future__ import annotations

from typing import Any

import django_filters
import jsonschema
from django import forms
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from armada_web.web.errors import Invalid
from armada_web.web.inputs import MAX_ID, parse_id, storable


def absolute(context: dict[str, Any], path: str) -> str:
    """`path` as an absolute URL of the request in `context` (the path alone without one)."""
    request = context.get("request")
    return request.build_absolute_uri(path) if request else path


class IdField(serializers.IntegerField):
    """An id in a JSON body: a JSON integer 1 .. 2**63 - 1 (`inputs.parse_id`), as the schema says (not
    the string "7", which DRF's IntegerField would take)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)

    def to_internal_value(self, data: Any) -> int:
        what = self.field_name or "id"
        if not isinstance(data, int) or isinstance(data, bool):
            raise serializers.ValidationError(f"give the {what} as a JSON integer from 1 to {MAX_ID}")
        try:
            return parse_id(data, what=what)
        except Invalid as exc:
            raise serializers.ValidationError(str(exc)) from None


class TextField(serializers.CharField):
    """A string in a JSON body, and only a string: DRF's CharField turns `123` into `"123"`, which
    the schema (`type: string`) does not allow."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            raise serializers.ValidationError("must be a string")
        return str(super().to_internal_value(data))


class StrictBooleanFormField(forms.Field):
    """`?name=true` or `?name=false` (the schema's boolean); anything else is a 400 (django-filter's
    own BooleanFilter reads any other word as "no filter")."""

    def to_python(self, value: Any) -> bool | None:
        if value in self.empty_values:
            return None
        if value in ("true", "false"):
            return value == "true"
        # the value goes in `params`: django-filter formats the message with `message % params`, and a
        # `%` written into the message itself (`?retired=100%`) was a TypeError there (a 500)
        raise forms.ValidationError("must be true or false; got %(value)s", params={"value": repr(str(value)[:20])})


def query_flag(request: Any, name: str) -> bool:
    """`?name=true|false` of a view's own (absent: false); anything else a 400 naming it."""
    try:
        return bool(StrictBooleanFormField(required=False).clean(request.query_params.get(name)))
    except forms.ValidationError as exc:
        raise serializers.ValidationError({name: exc.messages}) from None


class BooleanFilter(django_filters.BooleanFilter):
    """`?name=true|false`, as the schema says (see StrictBooleanFormField)."""

    field_class = StrictBooleanFormField


#: How a refusal names each JSON type.
TYPE_WORDS = {"integer": "a whole number (a JSON integer)", "string": "text (a JSON string)",
              "boolean": "true or false", "number": "a number", "object": "an object", "array": "a list"}


def _shape(schema: dict[str, Any]) -> dict[str, Any]:
    """The types in `schema`, without its bounds, enums and patterns."""
    if "anyOf" in schema:
        return {"anyOf": [_shape(option) for option in schema["anyOf"]]}
    return {"type": schema["type"]} if "type" in schema else {}


def _strings(data: Any) -> list[str]:
    """Every string in JSON value `data` (keys too)."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [text for key, value in data.items() for text in (*_strings(key), *_strings(value))]
    if isinstance(data, list):
        return [text for item in data for text in _strings(item)]
    return []


def typed_json(schema: dict[str, Any], *, nullable: bool = False, refusal: str = "", **kwargs: Any
               ) -> serializers.JSONField:
    """A body field that takes the JSON types `schema` (JSON Schema) allows, and states all of
    `schema` in the API's schema. DRF's JSONField takes any value, and the services behind these
    fields read `"3"` as 3; this refuses a value of another type (`Invalid`: 400 with `refusal`,
    or "NAME must be TYPE"), while the service checks the bounds, enums and patterns with its own
    messages (a name too long, an unknown game)."""
    shape = _shape(schema)

    class TypedJSONField(serializers.JSONField):
        def to_internal_value(self, data: Any) -> Any:
            if not jsonschema.Draft7Validator(shape).is_valid(data):
                words = " or ".join(TYPE_WORDS.get(option.get("type", ""), "a JSON value")
                                    for option in shape.get("anyOf", [shape]))
                raise Invalid(refusal or f"{self.field_name} must be {words}")
            if not all(storable(text) for text in _strings(data)):
                raise Invalid(f"{self.field_name} holds a NUL character or a lone surrogate (\\u0000, "
                              "\\ud800-\\udfff), which no name or text of the site can hold")
            return super().to_internal_value(data)

    stated = {**schema, "nullable": True} if nullable else schema
    return extend_schema_field(stated)(TypedJSONField)(allow_null=nullable, **kwargs)  # type: ignore[no-any-return]


#: How many unknown field names one refusal lists (a body of thousands is not echoed back).
UNKNOWN_SHOWN = 5


class Body(serializers.Serializer):
    """A JSON request body: a field it does not know is refused (400, naming it and the fields it
    takes), not dropped, so a misspelt optional field (`descripton`) is not silently ignored. The
    schema says the same (`additionalProperties: false`, `schema.known_fields_only`)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(str(name) for name in data if name not in self.fields)
            if unknown:
                known = ", ".join(name for name, field in self.fields.items() if not field.read_only)
                shown = ", ".join(repr(printable_name(n)) for n in unknown[:UNKNOWN_SHOWN])
                more = f" and {len(unknown) - UNKNOWN_SHOWN} more" if len(unknown) > UNKNOWN_SHOWN else ""
                raise serializers.ValidationError(
                    {"non_field_errors": [f"unknown field{'s' if len(unknown) > 1 else ''} {shown}{more} "
                                          f"(this request takes: {known or 'no fields'})"]})
        return super().to_internal_value(data)


def printable_name(name: str) -> str:
    """A field name as a refusal shows it: at most 40 characters."""
    return name if len(name) <= 40 else name[:39] + "\u2026"
