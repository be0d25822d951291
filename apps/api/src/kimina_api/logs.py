"""Structured logs: one JSON object per line (or plain text for a terminal), with each record's `extra` fields."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal

__all__ = ["JsonFormatter", "LogFormat", "TextFormatter", "configure_logging"]

LogFormat = Literal["json", "text"]

# Attributes every LogRecord has; anything else on a record came from `extra=` and belongs in the output.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


def _record_fields(record: logging.LogRecord) -> dict[str, object]:
    """The fields a record was given through `extra=`."""
    return {key: value for key, value in vars(record).items() if key not in _STANDARD}


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON line: time, level, logger, message, the `extra` fields, and any traceback."""

    def format(self, record: logging.LogRecord) -> str:
        """Render the record as a JSON object on one line."""
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **_record_fields(record),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """A readable line for a terminal: `time level logger: message key=value ...`."""

    def format(self, record: logging.LogRecord) -> str:
        """Render the record as one human-readable line (plus any traceback)."""
        stamp = datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        fields = " ".join(f"{key}={value}" for key, value in _record_fields(record).items())
        line = f"{stamp} {record.levelname:<7} {record.name}: {record.getMessage()}" + (f" {fields}" if fields else "")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def configure_logging(level: str = "info", fmt: LogFormat = "json") -> None:
    """Send the server's logs (ours and uvicorn's) to stderr in one format."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # uvicorn's access log would repeat what our request log says, without the request id.
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    logging.getLogger("uvicorn.access").disabled = True
