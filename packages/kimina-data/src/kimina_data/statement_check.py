"""Statement check of generated variants: `statement + sorry` must elaborate in Lean and come back as `sorry`.

A `lean_error` means the model wrote a statement Lean does not accept, so no proof could ever be rewarded.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from kimina_data.report import CheckStats
from kimina_data.schema import Rejection
from kimina_data.variants.step import ProgressHook

if TYPE_CHECKING:
    import datasets

log = logging.getLogger(__name__)

StatementCheck = Callable[[list[str]], list[str]]
"""Checks Lean snippets; returns one verdict kind per snippet, in order (`sorry`, `lean_error`, `timeout`, ...)."""

_BATCH = 64


def sorry_snippet(header: str, statement: str) -> str:
    """The code sent to Lean for a statement: header, statement, and `sorry` as its proof."""
    return f"{header}{statement}\n  sorry\n"


def check_statements(
    table: datasets.Dataset, check: StatementCheck, *, progress: ProgressHook | None = None
) -> tuple[datasets.Dataset, list[Rejection], CheckStats]:
    """Keep the rows whose `header + formal_statement + sorry` Lean reports as `sorry`.

    Other verdicts drop the row with reason `check_<kind>`: `check_lean_error` (the statement does not elaborate),
    `check_timeout`, `check_infra` (the server failed; the row is dropped rather than kept unchecked, and a rerun
    checks it again at no Gemini cost).
    """
    snippets = [sorry_snippet(h, s) for h, s in zip(table["header"], table["formal_statement"], strict=True)]
    kinds: list[str] = []
    for start in range(0, len(snippets), _BATCH):
        batch = snippets[start : start + _BATCH]
        verdicts = check(batch)
        if len(verdicts) != len(batch):
            raise RuntimeError(f"statement check returned {len(verdicts)} verdicts for {len(batch)} snippets")
        kinds.extend(str(v) for v in verdicts)
        if progress:
            progress("statement check", len(kinds), len(snippets))
    keep = [i for i, kind in enumerate(kinds) if kind == "sorry"]
    rejections = [
        Rejection(
            "statement_check",
            table[i]["data_source"],
            -1,
            table[i]["uid"],
            f"check_{kind}",
            f"`statement + sorry` came back as {kind}, not sorry",
            table[i],
        )
        for i, kind in enumerate(kinds)
        if kind != "sorry"
    ]
    stats = CheckStats(
        checked=len(kinds), kept=len(keep), dropped=dict(Counter(r.reason for r in rejections).most_common())
    )
    if rejections:
        log.warning("statement check dropped %d of %d variants: %s", len(rejections), len(kinds), stats.dropped)
    return table.select(keep, keep_in_memory=True), rejections, stats


def statement_check_from_url(url: str | None, api_key: str | None = None) -> StatementCheck | None:
    """A `StatementCheck` that asks the kimina-verify server at `url`; None when `url` is None."""
    if url is None:
        return None
    raise NotImplementedError
