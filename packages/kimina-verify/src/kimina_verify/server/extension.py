"""The `kimina_checks` extension of the check request: a snippet may ask for the checks run in Lean after it.

Upstream servers and kimina-client ignore the field (pydantic drops unknown fields), so a request with it works
everywhere; only this server answers it (`kimina_checks` in the result) and says so in `/health`'s `extensions`.
"""

from __future__ import annotations

from typing import Any

from kimina_client.models import CheckRequest, Snippet
from pydantic import Field, field_validator

from kimina_verify.lean_checks import ChecksRequest

__all__ = ["KiminaCheckRequest", "KiminaSnippet"]


class KiminaSnippet(Snippet):  # type: ignore[misc]  # kimina-client is not type-checked
    """A snippet, optionally with `kimina_checks: {"theorem": NAME, "statement": TEXT?}`."""

    kimina_checks: dict[str, Any] | None = Field(
        None, description="Checks to run in Lean after the snippet: the target theorem's full name, the statement"
    )

    @field_validator("kimina_checks")
    @classmethod
    def _valid(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            ChecksRequest.from_json(value)
        return value

    def checks(self) -> ChecksRequest | None:
        """The parsed request, if any."""
        return ChecksRequest.from_json(self.kimina_checks) if self.kimina_checks is not None else None


class KiminaCheckRequest(CheckRequest):  # type: ignore[misc]
    """kimina-client's `CheckRequest`, whose snippets may carry `kimina_checks`."""

    snippets: list[KiminaSnippet] = Field(description="List of snippets to validate (batch or single element)")
