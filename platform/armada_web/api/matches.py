"""`/api/matches/` (list, newest first, filters, cursor pages), `/api/matches/{id}/` and its `replay/`."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armada_web.api.bots import BotTeamSerializer
from armada_web.api.dataset_views import DatasetView
from armada_web.api.fields import absolute
from armada_web.api.pagination import page_openapi_parameters
from armada_web.api.params import check_known
from armada_web.api.schema import answers
from armada_web.bots.access import can_see_private
from armada_web.bots.models import Game
from armada_web.jobs.notes import shown_note
from armada_web.ladder.explain import explained, seat_ratings
from armada_web.ladder.logic.explain import SeatRating
from armada_web.matches import capacity, dataset, listing, storage
from armada_web.matches.drawings import replay_with_drawings
from armada_web.matches.models import Match, MatchKind, MatchStatus, Participant, Result
from armada_web.matches.queries import match_for, seat_log
from armada_web.web.errors import Invalid
from armada_web.web.inputs import parse_flag, parse_int


def bot_ref(p: Participant) -> dict[str, Any] | None:
    if p.version is None:
        return None
    bot = p.version.bot
    return {"id": bot.pk, "name": bot.name, "version": p.version.number,
            "team": {"id": bot.team_id, "name": bot.team.name}}


class PlayerBotSerializer(serializers.Serializer):
    """The bot of a seat and its version's number (what `bot_ref` gives)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.IntegerField(help_text="the version's number on its bot")
    team = BotTeamSerializer()


class PlayerSerializer(serializers.Serializer):
    bot = serializers.SerializerMethodField(help_text="null once the bot's version is gone")
    name = serializers.CharField()
    seat = serializers.IntegerField()
    result = serializers.CharField()
    status = serializers.CharField()

    @extend_schema_field(PlayerBotSerializer(allow_null=True))
    def get_bot(self, p: Participant) -> dict[str, Any] | None:
        return bot_ref(p)


class SkillSerializer(serializers.Serializer):
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    score = serializers.FloatField(help_text="the shown score, mu - 3 sigma")


class RatingPointSerializer(serializers.Serializer):
    """A seat's rating before or after the game (`rating_before`, `rating_after`; null when unrated)."""

    mu = serializers.FloatField()
    sigma = serializers.FloatField()


class SeatRatingSerializer(serializers.Serializer):
    """A rated seat's rating around the game (docs/ratings.md)."""

    before = SkillSerializer()
    after = SkillSerializer()
    expected = serializers.FloatField(help_text="the rating model's chance, before the game, that this seat wins "
                                      "(from both seats' ratings before it)")
    explanation = serializers.CharField(allow_null=True, help_text="the change in words, as the match page says it "
                                        "(\"+4.1: beat a bot rated 6 above this bot; this bot had a 41% "
                                        "chance\"); null "
                                        "without a result")


def seat_rating_data(rating: SeatRating, line: str | None) -> dict[str, Any]:
    """A `SeatRating` of a seat and its line (`ladder.explain.explained`; None without a result) as the API gives it."""
    def skill(mu: float, sigma: float, score: float) -> dict[str, float]:
        return {"mu": mu, "sigma": sigma, "score": score}

    return {"before": skill(rating.before.mu, rating.before.sigma, rating.score_before),
            "after": skill(rating.after.mu, rating.after.sigma, rating.score_after), "expected": rating.expected,
            "explanation": line}


class PlayerDetailSerializer(PlayerSerializer):
    detail = serializers.CharField()
    score = serializers.FloatField(allow_null=True)
    rating_before = serializers.SerializerMethodField()
    rating_after = serializers.SerializerMethodField()
    rating = serializers.SerializerMethodField(
        help_text="rated games (ranked, finals): the rating before and after and the expected result; null for "
        "challenges and events, and until the game is counted")

    @extend_schema_field(SeatRatingSerializer(allow_null=True))
    def get_rating(self, p: Participant) -> dict[str, Any] | None:
        seats = list(p.match.participants.all())
        rated = seat_ratings(seats)
        lines = {row.seat.seat: row.line for row in explained(seats)}
        return seat_rating_data(rated[p.seat], lines.get(p.seat)) if p.seat in rated else None

    @extend_schema_field(RatingPointSerializer(allow_null=True))
    def get_rating_before(self, p: Participant) -> dict[str, float] | None:
        return None if p.mu_before is None else {"mu": p.mu_before, "sigma": p.sigma_before or 0.0}

    @extend_schema_field(RatingPointSerializer(allow_null=True))
    def get_rating_after(self, p: Participant) -> dict[str, float] | None:
        return None if p.mu_after is None else {"mu": p.mu_after, "sigma": p.sigma_after or 0.0}


class TimingSerializer(serializers.Serializer):
    """A seat's time over the match (every request, init included), from its replay's timings."""

    total_ms = serializers.FloatField(help_text="all its requests' milliseconds")
    max_ms = serializers.FloatField(help_text="its slowest request's milliseconds")
    max_request = serializers.IntegerField(required=False, help_text="its slowest request's id: 0 is init, whose "
                                           "budget is init_ms (absent for matches recorded before 2026-12-06)")
    max_where = serializers.CharField(required=False, help_text="its slowest request's kind and turn: "
                                      "`command, turn 2`, `init` (absent for matches recorded before 2026-12-07)")
    timeouts = serializers.IntegerField(help_text="its requests that timed out (0 or 1: a timeout ends the match)")


class PlayerWithLogSerializer(PlayerDetailSerializer):
    """A seat with its bot's log for the bot's team and staff (no `log` key for anyone else)."""

    timing = TimingSerializer(allow_null=True, read_only=True,
                              help_text="its time, stored when the match was recorded; null for older matches")
    log = serializers.CharField(required=False, help_text="the bot's stderr in this match: its team and staff only")

    def to_representation(self, p: Participant) -> dict[str, Any]:
        data = super().to_representation(p)
        data.pop("log", None)
        request = self.context.get("request")
        if p.version is not None and can_see_private(user=getattr(request, "user", None), bot=p.version.bot):
            data["log"] = seat_log(p)
        return data


class MatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    kind = serializers.CharField()
    status = serializers.CharField()
    created = serializers.DateTimeField()
    finished = serializers.DateTimeField(allow_null=True)
    players = PlayerSerializer(many=True, source="participants.all")


class MatchDetailSerializer(MatchSerializer):
    players = PlayerWithLogSerializer(many=True, source="participants.all")  # type: ignore[assignment]
    seed = serializers.IntegerField()
    attempts = serializers.IntegerField()
    started = serializers.DateTimeField(allow_null=True)
    turns = serializers.IntegerField(allow_null=True)
    result = serializers.JSONField(source="outcome", allow_null=True)
    reason = serializers.CharField(help_text="why it is void, cancelled or waiting again (a platform failure's "
                                   "cause: staff only)")
    engine_version = serializers.CharField()
    host = serializers.CharField(help_text="the worker host that played it (its ARMADA_HOST_NAME; empty: never "
                                 "claimed)")
    replay = serializers.SerializerMethodField()
    waiting = serializers.SerializerMethodField(help_text="while it is queued: why it waits beyond its queue's "
                                                "turn (a season's finals take every worker), else empty")

    def to_representation(self, match: Match) -> dict[str, Any]:
        data = super().to_representation(match)
        data["reason"] = shown_note(match.reason, user=getattr(self.context.get("request"), "user", None))
        return data

    def get_waiting(self, match: Match) -> str:
        return capacity.waiting(kind=match.kind, status=match.status)

    def get_replay(self, match: Match) -> str | None:
        if not match.has_replay:
            return None
        return absolute(self.context, f"/api/matches/{match.pk}/replay/")


def _enum(name: str, values: list[str], text: str) -> OpenApiParameter:
    return OpenApiParameter(name, str, enum=values, description=text)


FILTERS = [
    _enum("game", list(Game.values), "the game"),
    OpenApiParameter("bot", str, description="a bot's id or name: the matches one of its versions sat in"),
    OpenApiParameter("opponent", str, description="with bot: the matches against this bot (id or name)"),
    OpenApiParameter("version", str, pattern=f"^{listing.VERSION_PATTERN}$",
                     description="with bot: the matches of its version N (3 or v3)"),
    _enum("kind", list(MatchKind.values), "the kind of match"),
    _enum("result", list(Result.values), "with bot: the bot's result"),
    _enum("status", list(MatchStatus.values), "the match's status"),
    OpenApiParameter("cursor", str, pattern=f"^{listing.CURSOR_PATTERN}$",
                     description="the page: follow next and previous (o<id>: older than match id, n<id>: newer)"),
    *page_openapi_parameters(
        page_maximum=listing.MAX_OFFSET,
        page_description=f"old clients: page N by number, within the newest {listing.MAX_OFFSET:,} matches "
        "(404 for a page deeper than they reach: follow next)"),
]


class MatchPageSerializer(serializers.Serializer):
    """A page of the match list: newest first, with the links to the pages beside it."""

    next = serializers.CharField(allow_null=True, help_text="the older matches' page (a cursor), or null")
    previous = serializers.CharField(allow_null=True, help_text="the newer matches' page, or null")
    results = MatchSerializer(many=True)


class MatchListView(APIView):
    """Matches, newest first, with filters, paged by cursor (a keyset: any page costs the same)."""

    permission_classes = [AllowAny]

    @extend_schema(operation_id="matches_list", parameters=FILTERS,
                   responses=answers({200: MatchPageSerializer}, 400, 404))
    def get(self, request: Request) -> Response:
        params = request.query_params
        check_known(request, (*listing.FILTERS, "page", "page_size", "cursor"))
        chosen = listing.filters(**{name: params.get(name) for name in listing.FILTERS})
        size = listing.page_size(params.get("page_size"))
        base = {**chosen.query(), **({"page_size": str(size)} if "page_size" in params else {})}
        # A page number or a cursor chooses the page (not both).
        raw_page = params.get("page")
        number = parse_int(raw_page, what="page", minimum=1, maximum=listing.MAX_OFFSET) if raw_page else None
        if number is not None and params.get("cursor"):
            raise Invalid("give a cursor (the list's next and previous links) or a page number, not both")
        if number is not None:
            rows, more = listing.numbered_page(chosen=chosen, number=number, size=size, viewer=request.user)
            older = self._link(base, page=str(number + 1)) if more else None
            newer = self._link(base, page=str(number - 1)) if number > 1 else None
        else:
            found = listing.page(chosen=chosen, cursor=params.get("cursor"), size=size, viewer=request.user)
            rows = found.matches
            older = self._link(base, cursor=found.older) if found.older else None
            newer = self._link(base, cursor=found.newer) if found.newer else None
        body = {"next": older, "previous": newer,
                "results": MatchSerializer(rows, many=True, context={"request": request}).data}
        return Response(body)

    def _link(self, base: dict[str, str], **extra: str) -> str:
        return self.request.build_absolute_uri(f"{self.request.path}?{urlencode({**base, **extra})}")


class MatchView(APIView):
    """One match: result, players with their ratings before and after; each player's log for its bot's team
    and staff."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({200: MatchDetailSerializer}, 404, 503))  # 503: a seat's log unreadable
    def get(self, request: Request, pk: int) -> Response:
        match = match_for(user=request.user, match_id=pk)
        if match is None:
            raise Http404("no such match")
        return Response(MatchDetailSerializer(match, context={"request": request}).data)


class MatchReplayView(DatasetView):
    """The replay (gzip JSON, replay format v1); 404 until the match is finished. Throttled as a
    bulk download too (THROTTLE_DATASET)."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[OpenApiParameter("drawings", bool, description="1: with the drawings of the seats whose bot "
                                     "is your team's, staff: every seat's (the `debug` key, as `armada play --replay` "
                                     "writes it); "
                                     "404 when none is")],
        responses=answers({(200, "application/gzip"): OpenApiResponse(description="the replay")}, 400, 404, 409, 503))
    def get(self, request: Request, pk: int) -> HttpResponse:
        drawings = parse_flag(request.query_params.get("drawings"), what="drawings")
        match = match_for(user=request.user, match_id=pk)
        data = storage.read(match.replay.name or "") if match is not None and match.has_replay else None
        if match is None or data is None:
            raise Http404("no replay: no such match, or it has not finished (a void match keeps none), "
                          "or its replay was pruned")
        if drawings:
            response = gzip_response(replay_with_drawings(user=request.user, match=match, replay=data),
                                     f"match-{pk}-drawings.json.gz")  # (not the public one's name: a trial)
            response["Cache-Control"] = "private, no-store"  # its drawings are its bots' teams' only
            return response
        dataset.facts(match=match, data=data)  # its size and checksum, kept once for the replays' list
        return gzip_response(data, f"match-{pk}.json.gz")


def gzip_response(data: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(data, content_type="application/gzip")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response
