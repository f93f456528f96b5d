"""Small pieces the API's serializers share."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from armada_web.web.errors import Invalid
from armada_web.web.inputs import MAX_ID, parse_id


def absolute(context: dict[str, Any], path: str) -> str:
    """`path` as an absolute URL of the request in `context` (the path alone without one)."""
    request = context.get("request")
    return request.build_absolute_uri(path) if request else path


class IdField(serializers.IntegerField):
    """An id in a body: a JSON integer (or a string of ASCII digits), 1 .. 2**63 - 1 (`inputs.parse_id`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)

    def to_internal_value(self, data: Any) -> int:
        try:
            return parse_id(data, what=self.field_name or "id")
        except Invalid as exc:
            raise serializers.ValidationError(str(exc)) from None


class IdFormField(forms.Field):
    """An id in a query string (`?bot=7`), for django-filter's filters."""

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        try:
            return parse_id(value)
        except Invalid as exc:
            raise forms.ValidationError(str(exc)) from None


@extend_schema_field({"type": "integer", "format": "int64", "minimum": 1, "maximum": MAX_ID})
class IdFilter(django_filters.Filter):
    """`?name=ID`: an id (ASCII digits, 1 .. 2**63 - 1); anything else is a 400."""

    field_class = IdFormField
