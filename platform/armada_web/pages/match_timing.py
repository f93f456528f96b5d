"""The match page's time and re-run part (template `pages/_match_timing.html`): each seat's time
over the match, and for the owner of a seat's bot (and staff) the command that re-runs that seat
at home and the link to its requests (`matches.rerun`)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from armada_web.bots.access import can_see_private, private_audience
from armada_web.matches.models import Match, Participant
from armada_web.matches.rerun import rerun_command


def timing_context(*, user: Any, match: Match, seats: list[Participant]) -> dict[str, Any]:
    """`timings`: the seats with a stored time; `reruns`: the seats `user` may re-run, with the command."""
    reruns = [{"seat": p, "command": rerun_command(match=match, seat=p.seat, bot_name=p.version.bot.name),
               "requests_url": f"{reverse('api-match-requests', args=[match.pk])}?seat={p.seat}",
               "audience": private_audience(bot=p.version.bot, user=user)}
              for p in seats if p.version is not None and can_see_private(user=user, bot=p.version.bot)]
    return {"timings": [p for p in seats if isinstance(p.timing, dict)], "reruns": reruns}
