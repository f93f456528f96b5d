"""What the broker (Redis) still holds: which jobs' messages are waiting or taken by a worker.

The database is the source of truth; the broker only carries messages, and can lose them (Redis
restarted without persistence, emptied). The reaper asks `job_ids` which waiting jobs still have
a message, so that it sends again at once the ones whose message is gone, and never piles up
copies of a message that is still there. Celery's Redis transport keeps a queue's messages in a
list per priority step (`queues.redis_keys`), and the messages workers took but did not
acknowledge in the hash `queues.UNACKED`; each message is JSON whose headers name the task and
whose body holds its arguments. `depths` counts what waits in every queue, for the status page
and /metrics.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import Iterable
from typing import Any

import redis
from django.conf import settings
from kombu.exceptions import OperationalError as KombuOperationalError

from armada_web.jobs import queues as registry

log = logging.getLogger(__name__)
#: What sending a task raises when the broker is down (after Celery's own retries).
DOWN = (KombuOperationalError, redis.RedisError, ConnectionError, TimeoutError)


def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2, socket_connect_timeout=2)


def _first_arg(message: dict[str, Any], task: str) -> int | None:
    """The first argument (a job id) of a Celery message of `task`, None for another task."""
    headers = message.get("headers") or {}
    if headers.get("task") != task:
        return None
    try:
        body = message.get("body", "")
        if (message.get("properties") or {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
        return int(args[0])
    except (ValueError, TypeError, IndexError, KeyError):
        return None


def job_ids(queues: Iterable[str], task: str, *, taken_within_s: float | None = None,
            now: float | None = None) -> set[int] | None:
    """Ids of the jobs of `task` with a message in `queues` or taken by a worker (not yet
    acknowledged; with `taken_within_s`, only one taken that many seconds ago at most); None when
    the broker cannot be read (not Redis, or not answering).

    Kombu keeps a taken message until its visibility timeout (an hour) when the worker that took it
    dies; `unacked_index` holds when each was taken (`registry.UNACKED_INDEX`)."""
    if not str(settings.CELERY_BROKER_URL).startswith(("redis://", "rediss://", "unix://")):
        return None
    names = set(queues)
    try:
        client = _client()
        try:
            queued: list[Any] = []
            for queue in names:
                for key in registry.redis_keys(queue):
                    queued += client.lrange(key, 0, -1)
            taken: dict[Any, Any] = client.hgetall(registry.UNACKED)
            scored: Any = (client.zrange(registry.UNACKED_INDEX, 0, -1, withscores=True)
                           if taken_within_s is not None and taken else [])
            when: dict[Any, float] = {tag: float(score) for tag, score in scored}
        finally:
            client.close()
    except redis.RedisError as exc:
        log.warning("could not read the broker's queues (%s)", exc)
        return None
    messages: list[Any] = [_json(item) for item in queued]
    oldest = (time.time() if now is None else now) - (taken_within_s or 0)
    for tag, item in taken.items():  # [message, exchange, routing key] of every queue of this Redis database
        if taken_within_s is not None and when.get(tag, oldest) < oldest:
            continue  # taken long ago by a worker that has not run it: most likely gone
        entry = _json(item)
        if isinstance(entry, list) and len(entry) == 3 and entry[2] in names:
            messages.append(entry[0])
    return {job for message in messages if isinstance(message, dict)
            and (job := _first_arg(message, task)) is not None}


def depths() -> dict[str, int | None]:
    """Messages waiting in every queue of the registry (each priority's list), by queue name, in
    the registry's order; None for every queue when Redis does not answer."""
    names = list(registry.names().values())
    try:
        client = _client()
        try:
            with client.pipeline() as pipe:
                for name in names:
                    for key in registry.redis_keys(name):
                        pipe.llen(key)
                sizes = pipe.execute()
        finally:
            client.close()
    except (redis.RedisError, OSError) as exc:
        log.warning("could not read the broker's queues (%s)", exc)
        return dict.fromkeys(names)
    per = 1 + len(registry.PRIORITY_STEPS)
    return {name: int(sum(sizes[i * per:(i + 1) * per])) for i, name in enumerate(names)}


def _json(raw: Any) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None
