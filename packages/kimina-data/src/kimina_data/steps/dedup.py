"""De-duplication step: one row per statement, keeping the row that tells the most about its problem."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kimina_data.statement import statement_key

__all__ = ["deduplicate"]

if TYPE_CHECKING:
    import datasets

_FIELDS = ["formal_statement", "win_rate", "n_proofs", "author", "informal_problem"]


def deduplicate(table: datasets.Dataset) -> datasets.Dataset:
    """Keep one row per normalised statement (comments, layout and theorem name ignored).

    Among duplicates the kept row is the one with a win rate, then the most recorded proof attempts, then a human
    author, then the longest informal text; ties go to the earliest row. Row order is otherwise preserved.
    """
    best: dict[str, tuple[tuple[bool, int, bool, int, int], int]] = {}
    index = 0
    for batch in table.select_columns(_FIELDS).iter(batch_size=8192):
        for statement, win_rate, n_proofs, author, informal in zip(*(batch[f] for f in _FIELDS), strict=True):
            score = (win_rate is not None, n_proofs or 0, author == "human", len(informal), -index)
            key = statement_key(statement)
            if key not in best or score > best[key][0]:
                best[key] = (score, index)
            index += 1
    return table.select(sorted(index for _, index in best.values()), keep_in_memory=True)
