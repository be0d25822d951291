"""`ServerResult`: one snippet's outcome exactly as a kimina-lean-server reported it, before any interpretation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ServerResult"]


@dataclass(frozen=True)
class ServerResult:
    """The raw outcome of one snippet.

    Attributes:
        time: Seconds the server says the body took (the timeout value on a timeout), when reported.
        error: The server's error string (timeout, no REPL available, REPL crash, transport failure), if any.
        response: The REPL's JSON response (`messages`, `sorries`, `infotree`, or a REPL-level `message`), if any.
        infra: True when the failure is known to be the infrastructure's (transport error, HTTP 5xx, ...), whatever
            the error string says.
        checks: The server's answer to the snippet's `kimina_checks` request (see `lean_checks`), if it gave one.
    """

    time: float | None = None
    error: str | None = None
    response: Mapping[str, Any] | None = None
    infra: bool = False
    checks: Mapping[str, Any] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ServerResult:
        """Read one item of `/api/check`'s `results` (or of `/verify`'s, whose `time` sits inside `response`).

        Lenient on purpose: real REPLs omit fields the published client models require (for example a sorry's
        `goal` or `pos`), and a verifier must not lose a result over that.
        """
        response = data.get("response")
        time = data.get("time")
        if isinstance(response, Mapping):
            response = dict(response)
            if time is None and "time" in response:
                time = response.pop("time")
        else:
            response = None
        error = data.get("error")
        checks = data.get("kimina_checks")
        return cls(
            time=float(time) if isinstance(time, int | float) else None,
            error=str(error) if error else None,
            response=response,
            checks=dict(checks) if isinstance(checks, Mapping) else None,
        )

    @classmethod
    def infra_failure(cls, detail: str) -> ServerResult:
        """A result standing for an infrastructure failure (no answer from the server)."""
        return cls(error=detail, infra=True)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict that `from_json` reads back."""
        data: dict[str, Any] = {"time": self.time}
        if self.error is not None:
            data["error"] = self.error
        if self.response is not None:
            data["response"] = dict(self.response)
        if self.checks is not None:
            data["kimina_checks"] = dict(self.checks)
        return data
