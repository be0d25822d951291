"""Check results and the checklist table the user reads before a launch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rich.console import Console
from rich.table import Table

__all__ = ["CheckResult", "Status", "failed", "render"]


class Status(StrEnum):
    """Outcome of one preflight check; only `FAIL` stops a launch."""

    OK = "ok"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


_STYLE = {Status.OK: "green", Status.WARN: "yellow", Status.FAIL: "bold red", Status.SKIP: "dim"}
_MARK = {Status.OK: "✔", Status.WARN: "!", Status.FAIL: "✘", Status.SKIP: "-"}


@dataclass(frozen=True)
class CheckResult:
    """One line of the checklist.

    Attributes:
        name: What was checked (`gpus`, `verifier`, `data`, `model`, `disk`, `versions`).
        status: The outcome.
        detail: What was found, in one sentence.
        fix: What to do about a failure or a warning, or None.
    """

    name: str
    status: Status
    detail: str
    fix: str | None = None

    @property
    def message(self) -> str:
        """The detail and the fix on one line, as printed and as the tests check."""
        return f"{self.name}: {self.detail}" + (f" -> {self.fix}" if self.fix else "")


def failed(results: Sequence[CheckResult]) -> list[CheckResult]:
    """The failed checks among `results`."""
    return [r for r in results if r.status is Status.FAIL]


def render(results: Sequence[CheckResult], console: Console, *, title: str = "Preflight") -> None:
    """Print the checklist as a table, then each failure's fix on its own line."""
    table = Table(title=title, show_header=False, box=None, pad_edge=False)
    table.add_column(width=1)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    for r in results:
        detail = r.detail + (f"\n[dim]{r.fix}[/dim]" if r.fix and r.status is Status.WARN else "")
        table.add_row(f"[{_STYLE[r.status]}]{_MARK[r.status]}[/]", r.name, detail)
    console.print(table)
    for r in failed(results):
        console.print(f"[bold red]✘ {r.name}[/]: {r.detail}" + (f"\n  [bold]fix:[/] {r.fix}" if r.fix else ""))
