"""Hard-problem weighting: repeat rows so that problems the policy rarely solves are seen more often."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kimina_data.schema import column

__all__ = ["Weighting", "weight"]

if TYPE_CHECKING:
    import datasets


@dataclass(frozen=True, slots=True)
class Weighting:
    """Copies per row as a step function of the win rate.

    `tiers` are `(max_win_rate, copies)` pairs: a row gets the copies of the first tier whose bound its win rate does
    not exceed, else `default`. Rows without a win rate get `unknown`. The defaults give an unsolved problem 4
    copies, one solved at most 1 time in 8 gets 3, at most 1 in 4 gets 2, anything easier 1.
    """

    tiers: tuple[tuple[float, int], ...] = ((0.0, 4), (0.125, 3), (0.25, 2))
    default: int = 1
    unknown: int = 1

    def __post_init__(self) -> None:
        bounds = [bound for bound, _ in self.tiers]
        if bounds != sorted(bounds):
            raise ValueError(f"weighting tiers must be sorted by win rate, got {bounds}")
        if any(copies < 0 for _, copies in self.tiers) or self.default < 0 or self.unknown < 0:
            raise ValueError("weighting copies cannot be negative")

    def __call__(self, win_rate: float | None) -> int:
        """Number of copies for a row with this win rate."""
        if win_rate is None:
            return self.unknown
        for bound, copies in self.tiers:
            if win_rate <= bound:
                return copies
        return self.default


def weight(table: datasets.Dataset, copies: Callable[[float | None], int] = Weighting()) -> datasets.Dataset:
    """Repeat each row `copies(win_rate)` times (0 drops it); copies sit next to each other, verl shuffles later."""
    indices = [index for index, w in enumerate(column(table, "win_rate")) for _ in range(copies(w))]
    return table.select(indices, keep_in_memory=True)
