"""Shared fixtures: the real Kimina completions from the repository's data/ and a builder for small synthetic completions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kimina_format import check_format
from kimina_format.testing import build_completion


@pytest.fixture(scope="session")
def real_rows(data_dir: Path) -> list[dict[str, Any]]:
    """The 197 real Kimina-Prover-Preview completions that Lean accepted."""
    with open(data_dir / "kimina_completions.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="session")
def passing_rows(real_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The real completions that pass the default rules, statement included: the starting point of mutations."""
    rows = [r for r in real_rows if check_format(r["completion"], formal_statement=r["formal_statement"]).ok]
    assert len(rows) >= 0.95 * len(real_rows)
    return rows


@pytest.fixture(scope="session")
def full_score_rows(real_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The real completions that keep the full score (1.0: no rule broken and no length penalty).

    The red-team attacks edit them and assert that no row keeps it; each look-alike, that every row does.
    """
    rows = [r for r in real_rows if check_format(r["completion"], formal_statement=r["formal_statement"]).score == 1.0]
    assert len(rows) >= 180
    return rows


Builder = Callable[..., str]


@pytest.fixture
def build() -> Builder:
    """`build(**overrides)` makes a small well-formed completion (see `kimina_format.testing.build_completion`)."""
    return build_completion
