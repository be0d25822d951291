"""Fixtures for every test in the workspace: the repository's real data (`data/`, see data/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from kimina_format.testing import data_dir as _data_dir


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The repository's data folder: miniF2F, real Kimina completions, recorded Lean verdicts, REPL transcripts."""
    try:
        return _data_dir()
    except FileNotFoundError as exc:
        pytest.fail(str(exc))
