"""A check waiting for or running on a REPL; identical checks in flight share one job."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from kimina_verify.lean_checks import ChecksRequest
from kimina_verify.server.outcome import CheckOutcome

__all__ = ["CheckSpec", "Job"]


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """What to run: a body in the environment of a header, with a timeout, REPL options and checks to run after it."""

    header: str
    body: str
    timeout: float
    infotree: str | None = None
    fresh: bool = False
    checks: ChecksRequest | None = None

    @property
    def key(self) -> tuple[str, str, float, str | None, bool, ChecksRequest | None]:
        """Checks with equal keys give the same answer, so one run serves them all."""
        return (self.header, self.body, self.timeout, self.infotree, self.fresh, self.checks)


@dataclass(eq=False, slots=True)
class Job:
    """One queued or running check and the future its waiters await."""

    spec: CheckSpec
    enqueued_at: float
    future: asyncio.Future[CheckOutcome]
    taken: bool = False
    waiters: int = field(default=1)

    def finish(self, outcome: CheckOutcome) -> None:
        """Hand the outcome to every waiter (once)."""
        if not self.future.done():
            self.future.set_result(outcome)
