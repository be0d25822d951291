"""A persistent cache of Lean results in SQLite, keyed by a hash of the checked code and the Lean environment.

Safe under concurrent writers (WAL journal, busy timeout, idempotent upserts). A corrupted or foreign file is reported,
moved aside and rebuilt; no cache error ever propagates to the caller, because a training run must not die for a
cache. What is stored is the server's raw result, so verdicts are re-derived with the caller's line map and policy.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterable
from pathlib import Path

from kimina_verify.result import ServerResult

__all__ = ["SCHEMA_VERSION", "VerdictCache", "cache_key"]

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    lean_env TEXT NOT NULL,
    result BLOB NOT NULL,
    created REAL NOT NULL
)
"""


def cache_key(code: str, lean_env: str, *, infotree: str | None = None, checks: str = "") -> str:
    """Hash identifying a Lean result: the code sent, the Lean environment id, the infotree level, the checks asked."""
    digest = hashlib.sha256()
    for part in (code, lean_env, infotree or "", checks):
        # `surrogatepass`: a key never raises; text Lean cannot take is refused before it gets here anyway.
        digest.update(part.encode("utf-8", errors="surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


class VerdictCache:
    """SQLite store of `ServerResult`s, usable from many processes at once.

    Example:
        >>> import tempfile, pathlib
        >>> cache = VerdictCache(pathlib.Path(tempfile.mkdtemp()) / "verdicts.sqlite")
        >>> cache.put_many({"k": ServerResult(time=0.1, response={"env": 0})}, lean_env="v4.15.0")
        >>> cache.get_many(["k"])["k"].response
        {'env': 0}
    """

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 60.0) -> None:
        self.path = Path(path).expanduser()
        self._busy_timeout_s = busy_timeout_s
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self.rebuilt = False
        self._open()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=self._busy_timeout_s, check_same_thread=False, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_s * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables - {"results"} or (tables and version != SCHEMA_VERSION):
                raise sqlite3.DatabaseError(f"not a kimina-verify cache (schema {version}, tables {sorted(tables)})")
            conn.execute(_SCHEMA)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("integrity check failed")
        except BaseException:
            conn.close()
            raise
        return conn

    def _open(self) -> None:
        try:
            self._conn = self._connect()
        except sqlite3.Error as exc:
            self._rebuild(exc)
        except OSError as exc:
            logger.error("verdict cache %s disabled: %s", self.path, exc)

    def _rebuild(self, exc: BaseException) -> None:
        """Move a broken cache file aside and start a fresh one; disable the cache if even that fails."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        try:  # another process may have rebuilt it in the meantime
            self._conn = self._connect()
            return
        except sqlite3.Error:
            pass
        aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        logger.warning("verdict cache %s is unreadable (%s); moving it to %s and rebuilding", self.path, exc, aside)
        try:
            if self.path.exists():
                self.path.replace(aside)
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            self._conn = self._connect()
            self.rebuilt = True
        except (OSError, sqlite3.Error) as again:
            logger.error("verdict cache %s disabled: %s", self.path, again)
            self._conn = None

    def get_many(self, keys: Iterable[str]) -> dict[str, ServerResult]:
        """Look up results by key; missing keys are absent from the returned dict."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, ServerResult] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                rows = self._query(
                    f"SELECT key, result FROM results WHERE key IN ({','.join('?' * len(chunk))})", chunk
                )
                for key, blob in rows:
                    try:
                        found[key] = ServerResult.from_json(json.loads(zlib.decompress(blob)))
                    except (zlib.error, ValueError, TypeError) as exc:
                        logger.warning("verdict cache: dropping unreadable entry %s (%s)", key[:12], exc)
        return found

    def put_many(self, results: dict[str, ServerResult], *, lean_env: str) -> None:
        """Store results (an existing key is overwritten with the same content)."""
        if not results:
            return
        now = time.time()
        rows = [
            (key, lean_env, zlib.compress(json.dumps(r.to_json(), ensure_ascii=False).encode("utf-8")), now)
            for key, r in results.items()
        ]
        with self._lock:
            self._write("INSERT OR REPLACE INTO results (key, lean_env, result, created) VALUES (?, ?, ?, ?)", rows)

    def __len__(self) -> int:
        with self._lock:
            rows = self._query("SELECT COUNT(*) FROM results", [])
        return int(rows[0][0]) if rows else 0

    def _query(self, sql: str, params: list[str]) -> list[tuple[str, bytes]]:
        for attempt in (1, 2):
            if self._conn is None:
                return []
            try:
                return list(self._conn.execute(sql, params).fetchall())
            except sqlite3.OperationalError as exc:
                logger.warning("verdict cache read failed (%s); treating as a miss", exc)
                return []
            except sqlite3.DatabaseError as exc:
                if attempt == 2:
                    return []
                self._rebuild(exc)
        return []

    def _write(self, sql: str, rows: list[tuple[str, str, bytes, float]]) -> None:
        for attempt in (1, 2):
            if self._conn is None:
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    self._conn.executemany(sql, rows)
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
                return
            except sqlite3.OperationalError as exc:
                logger.warning("verdict cache write failed (%s); results kept in memory only", exc)
                return
            except sqlite3.DatabaseError as exc:
                if attempt == 2:
                    return
                self._rebuild(exc)

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
