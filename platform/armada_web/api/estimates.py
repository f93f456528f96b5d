"""The estimates of the bot page and /status/ in the API (`ladder.queries.NextGame`): when a bot's
next ranked game should start and when its rating settles (`GET /api/bots/{id}/`'s `next_game`),
and the same for a version that starts playing now (`GET /api/status/`'s `new_version`)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from armada_web.ladder.queries import NextGame


class NextGameSerializer(serializers.Serializer):
    seconds = serializers.FloatField(allow_null=True, help_text="until the next ranked game starts (0: one is "
                                     "queued or running now); null when it plays no ranked games now (see why)")
    why = serializers.CharField(help_text="why it plays no ranked games now (empty when seconds is a number)")
    settled_seconds = serializers.FloatField(allow_null=True, help_text="until its rating settles (no longer "
                                             "provisional); null once it has, or without an estimate")


class NewVersionSerializer(NextGameSerializer):
    settled_new_bot_seconds = serializers.FloatField(allow_null=True, help_text="the same for a new bot's "
                                                     "first version (a fresh rating, which is served faster)")


def next_game_data(estimate: NextGame) -> dict[str, Any]:
    """A NextGame as the API shows it."""
    return {"seconds": estimate.seconds, "why": estimate.why, "settled_seconds": estimate.settled}


def new_version_data(estimate: NextGame) -> dict[str, Any]:
    """/status/'s estimate for a version starting now, as the API shows it."""
    return {**next_game_data(estimate), "settled_new_bot_seconds": estimate.settled_new_bot}
