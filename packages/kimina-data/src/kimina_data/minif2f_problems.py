"""miniF2F problems read straight from a JSON Lines file (no `datasets`), normalised exactly as the RL parquet's rows.

kimina-eval reads its problems here and kimina-data's miniF2F parquet comes from the same rules (`minif2f_fields`
and `normalise_row`), so validation during training and `kimina-eval` pass@k ask the model the same questions.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from kimina_format.prompts import TemplateName

from kimina_data.prover_prompt import prover_messages
from kimina_data.sources import SourceError, minif2f_fields
from kimina_data.statement import StatementError
from kimina_data.steps.normalise import normalise_row

__all__ = [
    "DEFAULT_STATEMENTS",
    "SPLITS",
    "MiniF2FProblem",
    "StatementSet",
    "read_minif2f",
    "statement_set",
]

StatementSet = Literal["corrected", "original"]
"""Which miniF2F statements to use: `corrected` puts the 15 fixed test statements (`formal_statement_rectified`)
in place of the originals; `original` keeps DeepSeek-Prover-V1.5's statements as they are."""

DEFAULT_STATEMENTS: StatementSet = "corrected"
"""The default statement set everywhere (RL validation data, `kimina-eval run`, `kimina-eval search`).

Kimina-Prover-RL's published numbers (the blog's pass@32 table, the in-training best@8) were measured on the hub's
`AI-MO/minif2f_test`, Numina's corrected miniF2F-test; the corrections it names (`mathd_numbertheory_618`,
`aime_1994_p3`, `amc12a_2021_p9`, `mathd_algebra_342`, `mathd_numbertheory_343`) are all among the 15 corrected
statements shipped here. The uncorrected set holds statements that are false or mistranscribed, which no prover can
or should prove, so comparing against upstream means the corrected set."""

SPLITS = ("valid", "test")


@dataclass(frozen=True)
class MiniF2FProblem:
    """One miniF2F problem as a prover is asked it.

    Attributes:
        name: miniF2F name, e.g. `mathd_algebra_478`.
        split: `valid` or `test`.
        header: Imports and options, ending in a blank line.
        formal_statement: The theorem, ending in `:= by`.
        informal: The problem in words (plain text), or None when the row has none.
    """

    name: str
    split: str
    header: str
    formal_statement: str
    informal: str | None

    @property
    def statement(self) -> str:
        """Header and theorem: the Lean text the model is shown and its proof is checked against."""
        return self.header + self.formal_statement

    def messages(self, template: TemplateName = "rl") -> list[dict[str, str]]:
        """The first-turn prompt (see `prover_messages`)."""
        return prover_messages(self.statement, self.informal, template=template)


def statement_set(rectified: bool) -> StatementSet:
    """The name of the set a `rectified` flag selects (`corrected` or `original`), for reports."""
    return "corrected" if rectified else "original"


def read_minif2f(
    path: str | os.PathLike[str], split: str = "test", *, statements: StatementSet = DEFAULT_STATEMENTS
) -> list[MiniF2FProblem]:
    """The problems of one split of a miniF2F JSON Lines file, in file order.

    Rows need `name` and `formal_statement`; `split` (default `test`, as for `AI-MO/minif2f_test`), `header`,
    `informal_prefix` and `formal_statement_rectified` are optional.

    Raises:
        SourceError: The file is missing, a line is no miniF2F row or its statement does not parse (the line is named),
            the split or statement set is unknown, or the split is empty.
    """
    if split not in SPLITS:
        raise SourceError(f"unknown split {split!r}; miniF2F has {', '.join(SPLITS)}")
    if statements not in get_args(StatementSet):
        raise SourceError(f"unknown statement set {statements!r}; use one of {', '.join(get_args(StatementSet))}")
    file = Path(path)
    if not file.is_file():
        raise SourceError(f"dataset file not found: {file}")
    problems = []
    with file.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if (row.get("split") or "test") != split:
                    continue
                name, informal, statement = minif2f_fields(row, rectified=statements == "corrected")
                if not isinstance(name, str) or not isinstance(statement, str):
                    raise KeyError("name" if not isinstance(name, str) else "formal_statement")
                text = informal if isinstance(informal, str) and informal.strip() else None
                header, body, cleaned = normalise_row("", statement, text or "")
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError, StatementError) as error:
                raise SourceError(f"{file}:{number}: not a miniF2F row ({type(error).__name__}: {error})") from None
            problems.append(MiniF2FProblem(name, split, header, body, cleaned if text is not None else None))
    if not problems:
        raise SourceError(f"{file} holds no problem in split {split!r}")
    return problems
