"""How to add an optional extra (`rl`, `learn`) to the installed SDK: by the address it came from.

`armada` on PyPI is another project, so `pip install "armada[rl]"` alone installs that one; the
extras go on top of this SDK with its wheel's address (the site's `/sdk/` page shows it) or its
folder. pip records where a package came from (PEP 610, `direct_url.json`): when it is known,
the line names it.
"""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

#: Shown when the SDK's origin is unknown (an editable or system install).
WHERE = "the wheel's address on your site's /sdk/ page, or ./sdk from a checkout"


def install_line(extra: str) -> str:
    """The pip command that adds `extra` to this SDK, e.g. `pip install "armada[rl] @ URL"`."""
    origin = where_from()
    if origin is None:
        return f'pip install "armada[{extra}] @ URL" (URL: {WHERE})'
    return f'pip install "armada[{extra}] @ {origin}"'


def site() -> str | None:
    """The site this SDK's wheel was downloaded from (`https://host` for `https://host/sdk/armada-...whl`),
    None when it did not come from a site's /sdk/ page."""
    origin = where_from()
    if origin is None or not origin.startswith(("http://", "https://")):
        return None
    head, slash, _wheel = origin.rpartition("/sdk/")
    return head if slash else None


def where_from() -> str | None:
    """The address pip installed this SDK from, when it recorded one (None otherwise)."""
    try:
        text = metadata.distribution("armada").read_text("direct_url.json")
        recorded: Any = json.loads(text) if text else {}
        url = recorded["url"]
        # An editable checkout (the line would replace it) or a VCS install (the URL alone is not
        # a pip requirement): the generic line instead.
        if (recorded.get("dir_info") or {}).get("editable") or "vcs_info" in recorded:
            return None
    except (metadata.PackageNotFoundError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return url if isinstance(url, str) and url.startswith(("http://", "https://", "file://")) else None
