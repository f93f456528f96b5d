"""A worker whose sandbox is gone stops taking games until it answers again.

`SandboxWatch` is a step of each Celery worker's consumer (armada_web.celery adds it). When the
worker consumes a queue whose tasks play games (validation, finals, challenges, events, matches), a thread asks
the sandbox (`armada_sandbox.check_ready`: the engine answers and holds the bot image) every
ARMADA_WORKER_SANDBOX_CHECK_S seconds; on a failure the consumer cancels those queues, so the
broker hands their tasks to the other hosts' workers, and when the engine answers again it
consumes them again. A task this worker had already received when its engine went is handed
back without being claimed (the tasks ask `games.runner.sandbox_ready` first), so the worker
voids nothing it did not start. The check runs in its own thread and only its answer is
applied on the consumer's timer, so a hung engine never blocks the worker's event loop.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import bootsteps
from django.conf import settings

from armada_sandbox import SandboxUnavailable, check_ready
from armada_web.jobs.queues import game_queues

log = logging.getLogger(__name__)


class SandboxWatch(bootsteps.StartStopStep):
    """Cancel this worker's game queues while its sandbox is down; consume them again after."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.queues: list[str] = []
        self.ready: bool | None = None
        self.problem = ""
        self.paused = False
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.timer: Any = None

    def start(self, consumer: Any) -> None:
        wanted = game_queues()
        self.queues = sorted(q.name for q in consumer.task_consumer.queues if q.name in wanted)
        self.paused = False  # a (re)started consumer consumes every queue of its own
        if not self.queues:
            return
        interval = float(settings.ARMADA.worker_sandbox_check_s)
        if self.thread is None or not self.thread.is_alive():
            self.stopping.clear()
            self.thread = threading.Thread(target=self._watch, args=(interval,), name="sandbox-watch", daemon=True)
            self.thread.start()
        self.timer = consumer.timer.call_repeatedly(min(interval, 1.0), self.apply, (consumer,))

    def _watch(self, interval: float) -> None:
        while not self.stopping.is_set():
            try:
                check_ready(image=settings.ARMADA.bot_image)
                self.ready, self.problem = True, ""
            except SandboxUnavailable as exc:
                self.ready, self.problem = False, str(exc)
            except Exception as exc:  # whatever else fails, the sandbox is not usable
                self.ready, self.problem = False, f"{exc.__class__.__name__}: {exc}"
            self.stopping.wait(interval)

    def apply(self, consumer: Any) -> None:
        """On the consumer's timer: cancel or consume the game queues as the latest check says."""
        if self.ready is False and not self.paused:
            log.warning("the sandbox is unavailable (%s): this worker stops taking tasks from %s until it answers",
                        self.problem, ", ".join(self.queues))
            for queue in self.queues:
                consumer.cancel_task_queue(queue)
            self.paused = True
        elif self.ready and self.paused:
            log.warning("the sandbox answers again: this worker takes tasks from %s again", ", ".join(self.queues))
            for queue in self.queues:
                consumer.add_task_queue(queue)
            self.paused = False

    def stop(self, consumer: Any) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def shutdown(self, consumer: Any) -> None:
        self.stop(consumer)
        self.stopping.set()
