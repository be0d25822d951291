"""miniF2F problems: load them from a JSONL file and sort them into the families the report breaks down by."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DatasetError",
    "FAMILIES",
    "FAMILY_NAMES",
    "Problem",
    "SPLITS",
    "family_of",
    "find_minif2f",
    "load_problems",
]

SPLITS = ("valid", "test")

# Checked in order: the first matching prefix names the family ("mathd_algebra" before "algebra").
FAMILIES = (
    ("aime", "aime"),
    ("amc", "amc"),
    ("imo", "imo"),
    ("mathd_algebra", "mathd algebra"),
    ("mathd_numbertheory", "mathd number theory"),
    ("algebra", "algebra"),
    ("numbertheory", "number theory"),
    ("induction", "induction"),
)
FAMILY_NAMES = tuple(name for _, name in FAMILIES)


class DatasetError(ValueError):
    """The dataset cannot be used: missing, malformed, or without the requested split."""


@dataclass(frozen=True)
class Problem:
    """One theorem to prove.

    Attributes:
        name: miniF2F name, e.g. ``mathd_algebra_478``.
        split: ``valid`` or ``test``.
        formal_statement: Header and theorem, ending in ``:= by``: what the model is given and must keep unchanged.
        informal: The natural-language problem (miniF2F's ``informal_prefix`` without its doc comment), or None.
    """

    name: str
    split: str
    formal_statement: str
    informal: str | None = None

    @property
    def family(self) -> str:
        """The miniF2F family of this problem (see `family_of`)."""
        return family_of(self.name)


def family_of(name: str) -> str:
    """Return the miniF2F family of a problem name, or "other".

    The families are aime, amc, imo (with imosl), mathd algebra, mathd number theory, algebra, number theory and
    induction.

    Example:
        >>> family_of("mathd_numbertheory_618"), family_of("amc12a_2021_p9"), family_of("imosl_2007_algebra_p6")
        ('mathd number theory', 'amc', 'imo')
    """
    for prefix, family in FAMILIES:
        if name.startswith(prefix):
            return family
    return "other"


def find_minif2f() -> Path:
    """The miniF2F file shipped with kimina-data (both splits, with the corrected statements).

    Raises:
        DatasetError: When the installation lacks it.
    """
    from kimina_data.minif2f import default_minif2f_source
    from kimina_data.sources import SourceError

    try:
        return default_minif2f_source()
    except SourceError as exc:
        raise DatasetError(f"{exc}; or pass --dataset PATH/TO/minif2f.jsonl") from None


def load_problems(
    dataset: str | os.PathLike[str] = "minif2f",
    split: str = "test",
    *,
    limit: int | None = None,
    rectified: bool = True,
) -> list[Problem]:
    """Load miniF2F problems of one split, in file order, through kimina-data's reader (`read_minif2f`).

    Statements and informal texts are normalised as kimina-data's RL parquet has them, so a problem's prompt here is
    the one its validation row carries during training.

    Args:
        dataset: ``"minif2f"`` (the file shipped with kimina-data, see `find_minif2f`) or a path to a JSONL file with miniF2F's
            fields: ``name``, ``formal_statement``, and optionally ``split`` (default ``test``), ``header``,
            ``informal_prefix``, ``formal_statement_rectified``.
        split: ``"valid"`` or ``"test"``.
        limit: Keep only the first ``limit`` problems.
        rectified: Use ``formal_statement_rectified`` where a row has one (the 15 corrected test statements; the
            default, see `kimina_data.minif2f_problems.DEFAULT_STATEMENTS`).

    Returns:
        The problems.

    Raises:
        DatasetError: If the file is missing or malformed (the line is named), or the split is unknown or empty.
    """
    from kimina_data.minif2f_problems import read_minif2f, statement_set
    from kimina_data.sources import SourceError

    if split not in SPLITS:
        raise DatasetError(f"unknown split {split!r}; miniF2F has {', '.join(SPLITS)}")
    path = find_minif2f() if str(dataset) == "minif2f" else Path(dataset)
    try:
        read = read_minif2f(path, split, statements=statement_set(rectified))
    except SourceError as error:
        raise DatasetError(str(error)) from None
    problems = [Problem(p.name, p.split, p.statement, p.informal) for p in read]
    return problems[:limit] if limit is not None else problems
