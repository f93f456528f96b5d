"""The match page: the viewer, the result, each seat; its owner also sees the bot's log and times."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from armada_web.bots.access import can_see_private
from armada_web.matches import queries
from armada_web.matches.models import MatchStatus


def match_page(request: HttpRequest, pk: int) -> HttpResponse:
    match = queries.matches().filter(pk=pk).first()
    if match is None:
        raise Http404("no such match")
    finished = match.status == MatchStatus.FINISHED and bool(match.replay.name)
    seats = list(match.participants.all())
    private = [p for p in seats if p.version is not None and can_see_private(user=request.user, bot=p.version.bot)]
    logs: list[dict[str, Any]] = []
    if private:
        replay = queries.replay_of(match) or {}
        timings = replay.get("timings") or {}
        for p in private:
            head, requests = queries.log_requests(queries.seat_log(p), timings.get(str(p.seat)))
            logs.append({"seat": p, "head": head, "requests": requests})
    names = " ".join(p.version.bot.name if p.version else "BOT" for p in seats)
    context = {
        "match": match, "seats": seats, "logs": logs, "finished": finished,
        "replay_url": reverse("api-match-replay", args=[pk]) if finished else None,
        "command": f"armada play {names} --game {match.game} --from-state match-{pk}.json.gz#turn=N",
    }
    return render(request, "pages/match.html", context)
