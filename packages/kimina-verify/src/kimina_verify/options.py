"""`VerifierOptions`: every setting of the `Verifier` client, in small frozen groups (as httpx's `Timeout`, `Limits`).

One object is built once (from a recipe, a CLI, environment variables) and passed whole through every layer: the
kimina-rl reward, kimina-eval's `run_eval` and `run_search`, `verify_sync`, the API. Each option has one name
everywhere, and its default lives here only. `parse_config(VerifierOptions, mapping)` reads it from YAML or JSON:

    endpoint: {url: http://verifier:8000, api_key: null, protocol: auto}
    timeouts: {lean_s: 60, http_s: null}
    retries: {count: 3, backoff_s: 1.0, max_backoff_s: 30.0}
    limits: {batch_size: 8, max_concurrency: 8}
    checks: {print_axioms: true, lean_checks: null, infotree: null, positions: auto, policy: {...}}
    cache: ~/.cache/kimina/verdicts.sqlite
    lean_env: null
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from kimina_verify.policy import IntegrityPolicy

__all__ = [
    "DEFAULT_URL",
    "Checks",
    "Endpoint",
    "Limits",
    "Retries",
    "Timeouts",
    "VerifierOptions",
    "nest_flat",
    "warn_flat",
]

DEFAULT_URL = "http://localhost:8000"

# The flat keyword arguments `Verifier` took before 0.5, and where each one lives now (group, field).
_FLAT: dict[str, tuple[str | None, str]] = {
    "url": ("endpoint", "url"),
    "api_key": ("endpoint", "api_key"),
    "protocol": ("endpoint", "protocol"),
    "timeout": ("timeouts", "lean_s"),
    "http_timeout": ("timeouts", "http_s"),
    "retries": ("retries", "count"),
    "backoff_s": ("retries", "backoff_s"),
    "max_backoff_s": ("retries", "max_backoff_s"),
    "batch_size": ("limits", "batch_size"),
    "max_concurrency": ("limits", "max_concurrency"),
    "policy": ("checks", "policy"),
    "print_axioms": ("checks", "print_axioms"),
    "lean_checks": ("checks", "lean_checks"),
    "infotree": ("checks", "infotree"),
    "positions": ("checks", "positions"),
    "cache": (None, "cache"),
    "lean_env": (None, "lean_env"),
}


@dataclass(frozen=True)
class Endpoint:
    """Which server to talk to, and how.

    Attributes:
        url: Server base URL; None reads `$LEAN_SERVER_API_URL`, else `http://localhost:8000`.
        api_key: Bearer key; None reads `$LEAN_SERVER_API_KEY` (or `$LEANSERVER_API_KEY`).
        protocol: `auto` (v2 `/api/check`, falling back to v1 `/verify`), `v2` or `v1`.
    """

    url: str | None = None
    api_key: str | None = None
    protocol: Literal["auto", "v2", "v1"] = "auto"

    def resolved_url(self) -> str:
        """The URL used: this one, else `$LEAN_SERVER_API_URL`, else the local default (without a trailing `/`)."""
        return (self.url or os.environ.get("LEAN_SERVER_API_URL") or DEFAULT_URL).rstrip("/")

    def resolved_api_key(self) -> str | None:
        """The key used: this one, else `$LEAN_SERVER_API_KEY`, else `$LEANSERVER_API_KEY` (upstream's spelling)."""
        return self.api_key or os.environ.get("LEAN_SERVER_API_KEY") or os.environ.get("LEANSERVER_API_KEY")

    def __repr__(self) -> str:  # the key stays out of logs and reprs
        key = "***" if self.api_key else None
        return f"Endpoint(url={self.url!r}, api_key={key!r}, protocol={self.protocol!r})"


@dataclass(frozen=True)
class Timeouts:
    """How long things may take, in seconds.

    Attributes:
        lean_s: Lean time limit per proof.
        http_s: Wait for one HTTP answer; None allows a whole batch to run in turn (`lean_s * batch_size + 60`).
    """

    lean_s: float = 60.0
    http_s: float | None = None

    def __post_init__(self) -> None:
        if not self.lean_s > 0 or (self.http_s is not None and not self.http_s > 0):
            raise ValueError(f"timeouts must be positive, got lean_s={self.lean_s}, http_s={self.http_s}")


@dataclass(frozen=True)
class Retries:
    """Retries of infrastructure failures (never of proof failures).

    Attributes:
        count: Extra attempts after the first; 0 when the caller owns the retry budget (the RL reward does).
        backoff_s: First retry delay; doubles each attempt (with jitter), capped at `max_backoff_s`.
        max_backoff_s: Longest retry delay.
    """

    count: int = 3
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0

    def __post_init__(self) -> None:
        if self.count < 0 or self.backoff_s < 0 or self.max_backoff_s < 0:
            raise ValueError(f"retries must not be negative, got {self}")


@dataclass(frozen=True)
class Limits:
    """Batching and concurrency of the requests to the server.

    Attributes:
        batch_size: Snippets per `/api/check` request.
        max_concurrency: Requests in flight at once (and HTTP connections kept).
    """

    batch_size: int = 8
    max_concurrency: int = 8

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.max_concurrency < 1:
            raise ValueError(f"batch_size and max_concurrency must be >= 1, got {self}")


@dataclass(frozen=True)
class Checks:
    """What is checked, and how the server's answer is read.

    Attributes:
        print_axioms: Check the axioms of the target (`#print axioms`, or in Lean) and accept only allowed ones.
        lean_checks: Check the target in Lean by separate commands (needs a server with the `kimina_checks`
            extension); None uses them when the server's `/health` lists the extension, and falls back to an
            appended `#print axioms` otherwise, with a warning.
        infotree: Ask the server for an infotree (`original`, ...) so feedback can show goals before errors.
        positions: How the server reports message lines (`auto` calibrates on our `#print axioms` line).
        policy: Integrity policy (`native_decide`, options, axioms, imports).
    """

    print_axioms: bool = True
    lean_checks: bool | None = None
    infotree: str | None = None
    positions: Literal["auto", "file", "body"] = "auto"
    policy: IntegrityPolicy = field(default_factory=IntegrityPolicy)


@dataclass(frozen=True)
class VerifierOptions:
    """Everything a `kimina_verify.Verifier` is configured with; pass it whole.

    Attributes:
        endpoint: Server URL, API key and protocol.
        timeouts: Lean and HTTP time limits.
        retries: Retries of infrastructure failures.
        limits: Batch size and concurrency.
        checks: Axioms, checks in Lean, infotree, positions and the integrity policy.
        cache: Path of the SQLite verdict cache; None for no cache.
        lean_env: Identifier of the server's Lean environment (toolchain + Mathlib), part of every cache key; None
            asks the server's `/health` (`lean_env` or `lean_version`), else uses the URL.

    Example:
        >>> from dataclasses import replace
        >>> options = VerifierOptions(Endpoint("http://verifier:8000"), limits=Limits(batch_size=16))
        >>> replace(options, retries=Retries(count=0)).retries.count
        0
    """

    endpoint: Endpoint = field(default_factory=Endpoint)
    timeouts: Timeouts = field(default_factory=Timeouts)
    retries: Retries = field(default_factory=Retries)
    limits: Limits = field(default_factory=Limits)
    checks: Checks = field(default_factory=Checks)
    cache: str | None = None
    lean_env: str | None = None

    def with_endpoint(self, url: str | None, api_key: str | None = None) -> VerifierOptions:
        """A copy pointing at `url` (with `api_key`); None keeps the current value (a CLI flag left unset)."""
        endpoint = replace(
            self.endpoint,
            url=url if url is not None else self.endpoint.url,
            api_key=api_key if api_key is not None else self.endpoint.api_key,
        )
        return replace(self, endpoint=endpoint)

    @classmethod
    def from_flat(cls, **flat: Any) -> VerifierOptions:
        """Options from the flat keyword arguments `Verifier` took before 0.5 (`timeout`, `batch_size`, ...).

        Deprecated: build the groups instead. Kept so that old scripts keep working for one release.

        Raises:
            TypeError: An unknown keyword, with the closest known one.
        """
        nested = nest_flat(flat)
        base = cls()
        groups = {
            name: replace(getattr(base, name), **value) for name, value in nested.items() if isinstance(value, dict)
        }
        top = {name: value for name, value in nested.items() if not isinstance(value, dict)}
        if top.get("cache") is not None and not isinstance(top["cache"], str):
            top["cache"] = str(top["cache"])
        return replace(base, **groups, **top)


def nest_flat(flat: Mapping[str, Any]) -> dict[str, Any]:
    """The flat 0.4 keywords (`timeout`, `batch_size`, ...) as a nested `VerifierOptions` mapping of only those keys.

    Raises:
        TypeError: An unknown keyword, with the closest known one.
    """
    from kimina_verify.config import suggest

    nested: dict[str, Any] = {}
    for name, value in flat.items():
        if name not in _FLAT:
            raise TypeError(f"unknown Verifier option {name!r}{suggest(name, _FLAT)}")
        group, key = _FLAT[name]
        if group is None:
            nested[key] = value
        else:
            nested.setdefault(group, {})[key] = value
    return nested


def warn_flat(names: Iterable[str]) -> None:
    """Warn (at the caller's caller) that the flat `Verifier` keywords are deprecated."""
    warnings.warn(
        f"the flat Verifier keywords {sorted(names)} are deprecated since kimina-verify 0.5: pass "
        "VerifierOptions(endpoint=Endpoint(url), timeouts=Timeouts(...), ...) instead",
        DeprecationWarning,
        stacklevel=3,
    )
