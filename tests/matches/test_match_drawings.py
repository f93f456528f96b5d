"""Issue 27: a seat's drawings are stored beside its log (only when it drew), kept and pruned like
the log, and the stored public replay carries none."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import timezone

from armada.referee.inprocess import InProcessBot
from armada.referee.match import play_match
from armada.replay import load_replay_bytes
from armada.starters.galaxy.random import Bot as Random

pytestmark = pytest.mark.django_db


class Drawer(Random):
    def command(self, obs, intel, warnings):
        self.debug.arrow(1, 16, color="red")
        self.debug.text("go")
        return super().command(obs, intel, warnings)


@pytest.fixture
def played(make_user, valid_version, monkeypatch, settings):
    from armada_web.matches import execution, tasks
    from armada_web.matches.services import create_match

    settings.ARMADA = settings.ARMADA.with_game("galaxy", match_config={"max_turns": 3})
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)
    monkeypatch.setattr(execution, "play", lambda *, match_id, game, seed, seats, config, purpose="match": play_match(
        game, {1: InProcessBot(Drawer, "a"), 2: InProcessBot(Random, "b")}, seed=seed, config=config))
    monkeypatch.setattr(tasks, "sandbox_ready", lambda: True)
    a = valid_version(make_user("alice"), "alpha")
    b = valid_version(make_user("bob"), "bravo", starter="random")

    def run(kind: str = "ranked"):
        match = create_match(game="galaxy", first=a, second=b, seed=3, kind=kind)
        assert tasks.run_match(match.pk) == "finished"
        match.refresh_from_db()
        return match
    return run


def test_the_drawings_go_beside_the_log_and_never_into_the_public_replay(played):
    from armada_web.matches import storage

    match = played()
    first, second = match.participants.order_by("seat")
    assert first.debug.name == f"matches/{match.pk}/seat-1-a1.debug.json.gz"
    assert first.log.name == f"matches/{match.pk}/seat-1-a1.log" and second.debug.name == ""
    drawn = storage.read_drawing(first.debug.name)
    assert drawn == {"turns": [{"turn": t, "text": "go", "shapes": [{"kind": "arrow", "at": 1, "to": 16,
                                                                     "color": "red"}]} for t in (1, 2, 3)]}
    replay = load_replay_bytes(storage.read(match.replay.name) or b"")
    assert "debug" not in replay and b"arrow" not in (storage.read(match.replay.name) or b"")
    assert storage.read_drawing("matches/none.debug.json.gz") is None


def test_the_drawings_are_pruned_with_the_log(played, settings):
    from armada_web.matches.models import Match, Participant

    settings.ARMADA = settings.ARMADA.with_(unranked_keep_days=30)
    match = played(kind="challenge")
    drawing = match.participants.get(seat=1).debug.name
    out = io.StringIO()
    call_command("prune_storage", "--apply", stdout=out)
    assert default_storage.exists(drawing)  # not expired, not an orphan: named by its row
    Match.objects.filter(pk=match.pk).update(finished=timezone.now() - timedelta(days=31))
    call_command("prune_storage", "--apply", stdout=out)
    assert not default_storage.exists(drawing)
    assert Participant.objects.get(match=match, seat=1).debug.name == ""
