"""Server settings: defaults, the upstream `LEAN_SERVER_*` environment variables, and validation."""

from __future__ import annotations

import json
import math
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

__all__ = ["MEMORY_RECYCLE_FRACTION", "ServerSettings", "parse_memory"]

_ENV_PREFIX = "LEAN_SERVER_"
# Where the infra/lean image puts the REPL, relative to the Lake project the REPL runs in.
_DEFAULT_REPL_PATH = "../repl/.lake/build/bin/repl"
# A REPL whose resident memory passes this share of its limit is replaced before it can hit the limit.
MEMORY_RECYCLE_FRACTION = 0.8


def _default_max_repls() -> int:
    """One REPL per core, leaving one core for the server itself (the upstream default)."""
    return max((os.cpu_count() or 2) - 1, 1)


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Everything `kimina-verify serve` can be configured with. Times are seconds, memory is MiB.

    Attributes:
        host: Interface to listen on.
        port: TCP port (0 picks a free one).
        api_key: When set, every check needs `Authorization: Bearer <key>`.
        repl_cmd: The command that starts one REPL; empty means `lake env <repl_path>` in `project_dir`.
        project_dir: Working directory of each REPL (the Lake project with Mathlib).
        repl_path: The REPL binary used by the default command.
        max_repls: REPL processes at most (one check runs on each at a time).
        max_repl_uses: Body commands a REPL runs before it is replaced (0 = never; the real REPL degrades after
            several hundred, leanprover-community/repl#77).
        max_repl_mem: Address-space limit of each REPL (RLIMIT_AS); a REPL whose resident memory passes
            `MEMORY_RECYCLE_FRACTION` of it is replaced after its command. 0 = no limit.
        timeout: Per-command timeout for requests that do not give one.
        max_timeout: Upper bound on the timeout a request may ask for.
        import_timeout: Timeout for running a header (imports), counted apart from the snippet's own timeout.
        max_queue: Checks waiting for a REPL at most; beyond that requests get 429 with Retry-After.
        max_wait: Seconds a check may wait for a REPL before it fails with "No available REPLs".
        max_snippet_bytes: Larger snippets fail on their own, without reaching a REPL.
        max_request_bytes: Larger request bodies get 413 (declared or chunked).
        max_batch: Snippets one request may hold, every one counted (identical ones too); more get 413.
        read_timeout: A client has this long to send each request's headers, may pause this long within its body
            (then 408), and may leave its answer unread this long; a slower one is disconnected.
        max_reply_bytes: A REPL reply larger than this is treated as garbage.
        header_switch_after: A REPL keeps serving its own header unless another check has waited this long.
        init_repls: Headers to import at start-up, with how many REPLs for each.
        shutdown_grace: On shutdown, in-flight checks get this long to finish; the rest fail explicitly.
        jail: `off`, `auto` (a bubblewrap jail when the host has `bwrap`: read-only file system, private `/tmp`, no
            network, no core files) or `bwrap` (required). Defence in depth: elaboration can run code.
        lean_version: Reported by /health (informational).
        log_level: Logging level name.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    api_key: str | None = None
    repl_cmd: tuple[str, ...] = ()
    project_dir: str | None = None
    repl_path: str = _DEFAULT_REPL_PATH
    max_repls: int = field(default_factory=_default_max_repls)
    max_repl_uses: int = 500
    max_repl_mem: int = 8192
    timeout: float = 60.0
    max_timeout: float = 600.0
    import_timeout: float = 300.0
    max_queue: int = 4096
    max_wait: float = 3600.0
    max_snippet_bytes: int = 1 << 20
    max_request_bytes: int = 64 << 20
    max_batch: int = 4096
    read_timeout: float = 30.0
    max_reply_bytes: int = 64 << 20
    header_switch_after: float = 5.0
    init_repls: Mapping[str, int] = field(default_factory=dict)
    shutdown_grace: float = 30.0
    jail: str = "off"
    lean_version: str | None = None
    log_level: str = "INFO"

    def __post_init__(self) -> None:
        if self.max_repls < 1:
            raise ValueError(f"max_repls must be at least 1, got {self.max_repls}")
        for name in ("max_queue", "max_batch", "max_request_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("timeout", "max_timeout", "import_timeout", "max_wait", "read_timeout"):
            if not 0 < getattr(self, name) < math.inf:  # false for NaN too
                raise ValueError(f"{name} must be a positive number of seconds, got {getattr(self, name)}")
        for name in ("header_switch_after", "shutdown_grace"):
            if not 0 <= getattr(self, name) < math.inf:
                raise ValueError(f"{name} must be 0 or more seconds, got {getattr(self, name)}")
        if self.jail not in ("off", "auto", "bwrap"):
            raise ValueError(f"jail must be off, auto or bwrap, got {self.jail!r}")
        if self.max_repl_uses < 0:
            raise ValueError(f"max_repl_uses must be 0 (never replace) or more, got {self.max_repl_uses}")
        if 0 < self.max_repl_mem < 64:
            raise ValueError(f"max_repl_mem is in MiB and must be at least 64, got {self.max_repl_mem}")
        if sum(self.init_repls.values()) > self.max_repls:
            raise ValueError(
                f"init_repls asks for {sum(self.init_repls.values())} REPLs, max_repls is {self.max_repls}"
            )

    @property
    def command(self) -> tuple[str, ...]:
        """The argv that starts one REPL."""
        return self.repl_cmd or ("lake", "env", self.repl_path)

    @property
    def cwd(self) -> str | None:
        """The directory each REPL starts in."""
        return str(Path(self.project_dir).expanduser()) if self.project_dir else None

    def with_overrides(self, **changes: Any) -> ServerSettings:
        """A copy with the given fields changed; `None` values are ignored (an unset CLI flag)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ServerSettings:
        """Defaults overridden by `LEAN_SERVER_*` variables (the upstream names, plus our own extra settings).

        Values are read by the shared loader (`kimina_verify.config.parse_config`, text as environment variables give
        it); only upstream's own spellings are translated first (`8G`, an empty `MAX_REPLS`, `-1` uses).

        Raises:
            ValueError: One line naming the variable and what is wrong with its value.
        """
        from kimina_verify.config import ConfigError, parse_config

        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(_ENV_PREFIX + f.name.upper())
            if raw is None:
                continue
            try:
                value = _upstream_env(f.name, raw.strip())
            except ValueError as exc:
                raise ValueError(f"{_ENV_PREFIX}{f.name.upper()}={raw!r}: {exc}") from exc
            if value is not None:
                values[f.name] = value
        try:
            return parse_config(cls, values, strings=True)
        except ConfigError as exc:
            key, _, problem = str(exc).partition(": ")
            name = key.split(".")[0]
            if name in values:
                raise ValueError(
                    f"{_ENV_PREFIX}{name.upper()}={env[_ENV_PREFIX + name.upper()]!r}: {problem}"
                ) from None
            raise ValueError(problem or str(exc)) from None  # a rule across fields, from __post_init__


def parse_memory(text: str) -> int:
    """MiB from `8G`, `512M` or a bare number of GiB (the upstream convention); 0 means no limit."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([GgMm]?)[iI]?[bB]?", text.strip())
    if not match:
        raise ValueError(f"not a memory size: {text!r} (use e.g. 8G or 512M)")
    number, unit = float(match.group(1)), match.group(2).upper()
    megabytes = int(number * 1024) if unit in ("G", "") else int(number)
    return megabytes


def _upstream_env(name: str, raw: str) -> Any:
    """Upstream's spellings of a `LEAN_SERVER_*` value, as plain data for the loader; None leaves the default."""
    if name == "max_repls":
        return raw or os.cpu_count() or 1  # upstream: an empty value means all cores
    if name == "max_repl_uses":
        return max(int(raw), 0) if raw else 0  # upstream uses -1 for "never"
    if name == "max_repl_mem":
        return parse_memory(raw) if raw else 0
    if name == "repl_cmd":
        return tuple(shlex.split(raw)) or None
    if name == "init_repls":
        data = json.loads(raw or "{}")
        if not isinstance(data, dict):
            raise ValueError('expected a JSON object like {"import Mathlib": 4}')
        return data
    return raw or None
