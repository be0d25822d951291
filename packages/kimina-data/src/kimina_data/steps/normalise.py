"""Normalise step: one layout for every statement and problem text, a header on every row."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kimina_data.statement import DEFAULT_HEADER, clean_text, parse_statement

__all__ = ["normalise"]

if TYPE_CHECKING:
    import datasets


def normalise(table: datasets.Dataset, *, default_header: str = DEFAULT_HEADER) -> datasets.Dataset:
    """Split each statement into `header` and `formal_statement` (ending in `:= by`) and tidy all whitespace.

    Rows must have passed the loader's checks; a statement that does not parse raises `StatementError`. Running it
    twice changes nothing.

    Args:
        table: A canonical table; `header` may be empty and `formal_statement` may carry its own header.
        default_header: The header given to rows whose statement comes without imports.
    """

    def batch(header: list[str], statement: list[str], informal: list[str]) -> dict[str, list[Any]]:
        parsed = [parse_statement(h + s, default_header=default_header) for h, s in zip(header, statement, strict=True)]
        return {
            "header": [p.header for p in parsed],
            "formal_statement": [p.body for p in parsed],
            "informal_problem": [clean_text(text) for text in informal],
        }

    return table.map(
        batch,
        batched=True,
        input_columns=["header", "formal_statement", "informal_problem"],
        keep_in_memory=True,
        desc="normalise",
    )
