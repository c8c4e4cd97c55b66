"""Structured logs: with WEREWOLF_LOG_FORMAT=json every record is one JSON object a line,
with the ids the app attaches to what it logs (game, phase, dispatch, inbound message,
resolution, status...), for a log collector to index. Plain text otherwise."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

FIELDS = ("game", "phase", "index", "seat", "dispatch", "inbound", "resolution", "status", "code", "kind", "attempt")
"""The ids and facts a record may carry (`extra=`), copied into the JSON object."""


class JSONFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the known
    fields present on the record, and the traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)
