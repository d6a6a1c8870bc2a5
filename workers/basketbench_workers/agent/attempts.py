"""How many times a run has been started, so a redelivered task never loops forever.

With a broker, the counter lives in the broker's Redis (it must survive the worker
that is killed); embedded runs have no redelivery and count in memory.
"""

from __future__ import annotations

from collections import Counter
from typing import Protocol


class AttemptCounter(Protocol):
    def next(self, run_id: int) -> int: ...


class MemoryAttempts:
    def __init__(self) -> None:
        self._counts: Counter[int] = Counter()

    def next(self, run_id: int) -> int:
        self._counts[run_id] += 1
        return self._counts[run_id]


class RedisAttempts:
    TTL_SECONDS = 14 * 24 * 3600

    def __init__(self, url: str, prefix: str = "basketbench:attempts:") -> None:
        import redis

        self._redis = redis.Redis.from_url(url, socket_timeout=10)
        self._prefix = prefix

    def next(self, run_id: int) -> int:
        key = f"{self._prefix}{run_id}"
        pipe = self._redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, self.TTL_SECONDS)
        count, _ = pipe.execute()
        return int(count)
