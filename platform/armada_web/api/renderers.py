"""The browsable API under the site's Content-Security-Policy (web.csp).

DRF's page puts Pygments' colours in an inline `<style>` (left out here: prettify.css, a file,
colours the code) and a `style` attribute on its filter and extra-action buttons (allowed by
this page's policy alone: an attribute's style cannot run script, and inline scripts stay refused).
"""

from __future__ import annotations

from typing import Any

from rest_framework.renderers import BrowsableAPIRenderer

from armada_web.web.csp import POLICY

#: The site's policy with inline style attributes allowed (the browsable API's pages only).
BROWSABLE_POLICY = POLICY + "; style-src-attr 'unsafe-inline'"


class BrowsableAPI(BrowsableAPIRenderer):
    """DRF's browsable API without inline `<style>`, and with its own policy header."""

    def get_context(self, data: Any, accepted_media_type: str | None, renderer_context: dict[str, Any]
                    ) -> dict[str, Any]:
        context = super().get_context(data, accepted_media_type, renderer_context)
        context["code_style"] = None
        response = renderer_context.get("response")
        if response is not None:
            response.headers["Content-Security-Policy"] = BROWSABLE_POLICY
        return context
