"""The challenge button (ladder rows, bot pages): one of your bots against the row's bot, as
`ladder.challenges.challenge` accepts it; then the match's page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from armada_web.accounts.queries import signed_in
from armada_web.bots import queries as bot_queries
from armada_web.ladder.challenges import challenge
from armada_web.web.errors import DomainError


def _id(text: str | None) -> int | str:
    """A form's bot field: an id (the buttons send ids), or what was typed (the service says what is wrong)."""
    text = (text or "").strip()
    return int(text) if text.isascii() and text.isdigit() else text


@login_required
@require_POST
def challenge_view(request: HttpRequest) -> HttpResponse:
    opponent = _id(request.POST.get("opponent"))
    try:
        match = challenge(user=signed_in(request), bot=_id(request.POST.get("bot")), opponent=opponent)
    except DomainError as exc:
        messages.error(request, f"Challenge refused: {exc}")
        # back to the opponent's page, where the button was; one deleted meanwhile (or no such bot) has
        # none, and its 404 would leave the message for some later page (a competitor's trial)
        shown = isinstance(opponent, int) and bot_queries.bots().filter(pk=opponent).exists()
        return redirect("bot", pk=opponent) if shown else redirect("home")
    names = " vs ".join(p.name for p in match.participants.order_by("seat"))
    messages.success(request, f"Challenge queued: match #{match.pk}, {names}. This page shows it when it is played.")
    return redirect("match", pk=match.pk)
