"""Django's Redis cache, answering as an empty cache while Redis is down.

The site's cache holds only what can be lost (throttle counters, the failed log-in counts): with
Redis down, a page or an API call must still answer, not fail with a 500. Each operation that
cannot reach Redis behaves like a miss (a read finds nothing, a write keeps nothing, `add`
succeeds) and logs one warning per minute at most; the next operation tries Redis again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)
T = TypeVar("T")
DOWN = (RedisConnectionError, RedisTimeoutError, OSError)
#: Seconds between two warnings that Redis is down.
WARN_EVERY_S = 60.0


class ResilientRedisCache(RedisCache):
    """`RedisCache` whose operations degrade to a miss while Redis cannot be reached."""

    _warned = 0.0

    def _or(self, fallback: T, call: Callable[[], T]) -> T:
        try:
            return call()
        except DOWN as exc:
            now = time.monotonic()
            if now - ResilientRedisCache._warned > WARN_EVERY_S:
                ResilientRedisCache._warned = now
                log.warning("the cache (Redis) is unreachable, working without it: %s", exc)
            return fallback

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._or(default, lambda: super(ResilientRedisCache, self).get(key, default, version))

    def get_many(self, keys: Any, version: Any = None) -> Any:
        return self._or({}, lambda: super(ResilientRedisCache, self).get_many(keys, version))

    def has_key(self, key: Any, version: Any = None) -> bool:
        return self._or(False, lambda: super(ResilientRedisCache, self).has_key(key, version))

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> None:
        self._or(None, lambda: super(ResilientRedisCache, self).set(key, value, timeout, version))

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._or(list(data), lambda: super(ResilientRedisCache, self).set_many(data, timeout, version))

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return self._or(True, lambda: super(ResilientRedisCache, self).add(key, value, timeout, version))

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return self._or(False, lambda: super(ResilientRedisCache, self).touch(key, timeout, version))

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        return self._or(delta, lambda: super(ResilientRedisCache, self).incr(key, delta, version))

    def delete(self, key: Any, version: Any = None) -> bool:
        return self._or(False, lambda: super(ResilientRedisCache, self).delete(key, version))

    def delete_many(self, keys: Any, version: Any = None) -> None:
        self._or(None, lambda: super(ResilientRedisCache, self).delete_many(keys, version))
