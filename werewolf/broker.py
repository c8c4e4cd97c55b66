"""A worker that outlives a restart of its Redis broker.

With late acknowledgement, a worker holds unacknowledged messages (ETA tasks waiting for
their time, the task it is running). When the broker goes away, Celery closes the
connection, and kombu's Redis channel then tries to put those messages back through a
connection that no longer has its settings (kombu 5.x: `AttributeError: 'NoneType'
object has no attribute 'hostname'` in `QoS.restore_unacked`). Celery does not expect
that error while closing, and the worker stops for good ("Unrecoverable error").

Here, a restore that cannot reach the broker is skipped instead: the messages stay in
Redis's unacked set, which Redis gives back after the visibility timeout, and if the
broker lost them (a Redis without persistence), the deadline kept in the database and the
beat's sweeper resolve the phase anyway. The worker reconnects and goes on.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)

_installed = False


def install() -> None:
    """Patch kombu's Redis QoS once, in every process that loads the Celery app."""
    global _installed
    if _installed:
        return
    try:
        from kombu.transport import redis as kombu_redis
    except ImportError:  # pragma: no cover - the redis extra is not installed
        return
    original = kombu_redis.QoS.restore_unacked

    def restore_unacked(self: Any, client: Any = None) -> Any:
        transport = getattr(self.channel, "connection", None)
        if client is None and (transport is None or getattr(transport, "client", None) is None):
            logger.warning(
                "the broker connection is gone: %d unacknowledged message(s) are left to Redis's "
                "visibility timeout and to the sweeper",
                len(self._delivered),
            )
            self._delivered.clear()
            return None
        return original(self, client)

    kombu_redis.QoS.restore_unacked = restore_unacked  # type: ignore[method-assign]  # the patch itself
    _installed = True
