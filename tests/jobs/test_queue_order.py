"""The workers' queue order (armada_web.jobs.queue_order.FinalsFirst): the finals queue always first,
the others round robin behind it; and the broker setting names it."""

from __future__ import annotations

from django.conf import settings

from armada_web.jobs.queue_order import FinalsFirst


def test_the_finals_queue_stays_first_and_the_others_take_turns():
    finals = settings.ARMADA.finals_queue
    cycle = FinalsFirst(["challenges", "events", finals, "matches"])
    assert cycle.consume(4) == [finals, "challenges", "events", "matches"]
    cycle.rotate(finals)
    assert cycle.consume(4)[0] == finals
    cycle.rotate("challenges")
    assert cycle.consume(4) == [finals, "events", "matches", "challenges"]
    cycle.rotate("events")
    assert cycle.consume(4) == [finals, "matches", "challenges", "events"]
    cycle.update(["matches", finals])
    assert cycle.consume(2) == [finals, "matches"]


def test_the_broker_uses_it():
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["queue_order_strategy"] == "armada_web.jobs.queue_order:FinalsFirst"
    from kombu.utils.scheduling import cycle_by_name

    assert cycle_by_name(settings.CELERY_BROKER_TRANSPORT_OPTIONS["queue_order_strategy"]) is FinalsFirst
