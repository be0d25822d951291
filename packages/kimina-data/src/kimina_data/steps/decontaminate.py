"""Decontamination step: drop training rows whose statement is an evaluation problem's (miniF2F by default)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from kimina_data.schema import Rejection, problem_label
from kimina_data.statement import statement_key

__all__ = ["decontaminate"]

if TYPE_CHECKING:
    import datasets

_FIELDS = ["data_source", "uid", "formal_statement"]


def decontaminate(
    table: datasets.Dataset, reference_keys: Mapping[str, Sequence[str]], *, step: str = "decontaminate"
) -> tuple[datasets.Dataset, list[Rejection]]:
    """Split a normalised table into (kept rows, removed rows) by whether its statement is a reference statement.

    Statements are compared by `statement_key`, as in de-duplication: comments, layout and the theorem's name are
    ignored; any other difference (a hypothesis renamed, a number changed) makes a different statement. Only
    training rows are checked: a row whose own `data_source:uid` is a reference problem (the build reads the
    evaluation set itself, e.g. miniF2F for validation) is that problem, not a copy of it, and is kept.

    Args:
        table: A normalised canonical table.
        reference_keys: Statement key to the labels (`data_source:uid`) of the reference problems with that
            statement, as in `kimina_data.references.Reference.keys`.
        step: The step name recorded in each removed row's `Rejection`.

    Returns:
        The kept rows, in order, and one `Rejection` (reason `contaminated`, detail naming the matched reference
        problems, record the whole row) per removed row.
    """
    if not reference_keys or not len(table):
        return table, []
    own = {label for labels in reference_keys.values() for label in labels}
    kept: list[int] = []
    removed: list[tuple[int, Sequence[str]]] = []
    index = 0
    for batch in table.select_columns(_FIELDS).iter(batch_size=8192):
        for data_source, uid, statement in zip(*(batch[f] for f in _FIELDS), strict=True):
            matches = reference_keys.get(statement_key(statement))
            if matches and problem_label(data_source, uid) not in own:
                removed.append((index, matches))
            else:
                kept.append(index)
            index += 1
    if not removed:
        return table, []
    records = table.select([i for i, _ in removed], keep_in_memory=True).to_list()
    rejections = [
        Rejection(
            step,
            record["data_source"],
            -1,
            record["uid"],
            "contaminated",
            f"same statement as {', '.join(matches)}",
            record,
        )
        for record, (_, matches) in zip(records, removed, strict=True)
    ]
    return table.select(kept, keep_in_memory=True), rejections
