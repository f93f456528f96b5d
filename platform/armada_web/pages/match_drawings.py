"""The match page's part of the bots' drawings (issue 27, docs/viewer.md "Bots' drawings"): which seats'
drawings the viewer fetches for this user. Drawings are private like logs, so the page names only the
seats whose bot the user may see privately (its owner, staff); the viewer shows the user's own seats at
first and the others (staff) behind their toggle. The API answers 404 to anyone else anyway.

The URLs are named only when the API has its drawings route (`api-match-debug`): a page never makes the
viewer fetch what is not served."""

from __future__ import annotations

import json
from typing import Any

from django.urls import NoReverseMatch, reverse

from armada_web.bots.access import can_see_private, is_owner
from armada_web.matches.models import Match, Participant


def drawing_sources(*, user: Any, match: Match, seats: list[Participant]) -> list[dict[str, Any]]:
    """One `{"seat", "url", "on"}` per seat `user` may see the drawings of (`on`: the user owns its bot)."""
    try:
        base = reverse("api-match-debug", args=[match.pk])  # /api/matches/{id}/debug/
    except NoReverseMatch:
        return []
    return [{"seat": p.seat, "url": f"{base}?seat={p.seat}", "on": is_owner(bot=p.version.bot, user=user)}
            for p in seats if p.version is not None and can_see_private(user=user, bot=p.version.bot)]


def drawing_context(*, user: Any, match: Match, seats: list[Participant]) -> dict[str, Any]:
    """`debug_sources`: the viewer's `data-armada-debug` (JSON text; '' when the user may see no seat's);
    `drawn`: whether one of those seats drew anything (the replay with drawings is offered only then)."""
    sources = drawing_sources(user=user, match=match, seats=seats)
    shown = {source["seat"] for source in sources}
    return {"debug_sources": json.dumps(sources) if sources else "",
            "drawn": any(p.debug.name for p in seats if p.seat in shown)}
