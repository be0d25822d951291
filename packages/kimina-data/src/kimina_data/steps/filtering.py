"""Win-rate filter: drop problems the policy already solves most of the time."""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["filter_win_rate"]

if TYPE_CHECKING:
    import datasets


def filter_win_rate(
    table: datasets.Dataset, *, max_win_rate: float = 0.5, keep_missing: bool = True
) -> datasets.Dataset:
    """Keep rows whose historical win rate is at most `max_win_rate` (the upstream recipe drops those above 0.5).

    Args:
        table: A canonical table.
        max_win_rate: The largest win rate kept.
        keep_missing: Keep rows without a win rate (no RL history, or generated variants).
    """

    def keep(win_rates: list[float | None]) -> list[bool]:
        return [keep_missing if w is None else w <= max_win_rate for w in win_rates]

    return table.filter(keep, batched=True, input_columns="win_rate", keep_in_memory=True, desc="filter win rate")
