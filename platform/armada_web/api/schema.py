"""OpenAPI: how our token authentication appears in /api/schema/ (drf-spectacular extension)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class NamedTokenScheme(OpenApiAuthenticationExtension):
    target_class = "armada_web.accounts.tokens.NamedTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <secret>`: create one on your profile page or with `armada login`"}
