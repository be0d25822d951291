"""Normalise step: one layout for every statement and problem text, a header on every row."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kimina_data.statement import DEFAULT_HEADER, clean_text, parse_statement

if TYPE_CHECKING:
    import datasets


def normalise_row(
    header: str, statement: str, informal: str, *, default_header: str = DEFAULT_HEADER
) -> tuple[str, str, str]:
    """One row's `(header, formal_statement, informal_problem)` as `normalise` writes them (no `datasets` needed).

    Raises:
        StatementError: The statement does not parse.
    """
    parsed = parse_statement(header + statement, default_header=default_header)
    return parsed.header, parsed.body, clean_text(informal)


def normalise(table: datasets.Dataset, *, default_header: str = DEFAULT_HEADER) -> datasets.Dataset:
    """Split each statement into `header` and `formal_statement` (ending in `:= by`) and tidy all whitespace.

    Rows must have passed the loader's checks; a statement that does not parse raises `StatementError`. Running it
    twice changes nothing.

    Args:
        table: A canonical table; `header` may be empty and `formal_statement` may carry its own header.
        default_header: The header given to rows whose statement comes without imports.
    """

    def batch(header: list[str], statement: list[str], informal: list[str]) -> dict[str, list[Any]]:
        rows = [
            normalise_row(h, s, text, default_header=default_header)
            for h, s, text in zip(header, statement, informal, strict=True)
        ]
        return {
            "header": [row[0] for row in rows],
            "formal_statement": [row[1] for row in rows],
            "informal_problem": [row[2] for row in rows],
        }

    return table.map(
        batch,
        batched=True,
        input_columns=["header", "formal_statement", "informal_problem"],
        keep_in_memory=True,
        desc="normalise",
    )
