"""On-disk cache of model answers keyed by model and prompt, so a rerun after a crash repeats no paid call."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

__all__ = ["AnswerCache", "CachedAnswer", "cache_key"]


@dataclass(frozen=True, slots=True)
class CachedAnswer:
    """A model's raw answer with the tokens it cost when it was first made."""

    text: str | None
    input_tokens: int
    output_tokens: int


def cache_key(model: str, prompt: str) -> str:
    """The key of one call: a hash of the model name and the full prompt."""
    return hashlib.sha256(json.dumps([model, prompt], ensure_ascii=False).encode()).hexdigest()


class AnswerCache:
    """A SQLite file of answers; each `put` is committed at once, so a crash loses at most the call in flight.

    Answers are stored raw, whether or not they later pass validation: what was paid for is kept, and better
    validation applies to old answers on the next run. Use from one thread.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, model TEXT NOT NULL, prompt TEXT NOT NULL,"
            " text TEXT, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, created REAL NOT NULL)"
        )

    def get(self, key: str) -> CachedAnswer | None:
        """The answer stored under `key`, or None."""
        row = self._db.execute("SELECT text, input_tokens, output_tokens FROM answers WHERE key = ?", (key,)).fetchone()
        return CachedAnswer(*row) if row else None

    def put(self, key: str, model: str, prompt: str, answer: CachedAnswer) -> None:
        """Store an answer (replacing any under the same key) and commit."""
        self._db.execute(
            "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, model, prompt, answer.text, answer.input_tokens, answer.output_tokens, time.time()),
        )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        """Close the database file."""
        self._db.close()

    def __enter__(self) -> AnswerCache:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
