"""Shared fixtures: the shared data folder, composed recipes (composition imports verl once), a sim server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from kimina_train.recipe import Recipe, load_recipe


def shared_data() -> Path:
    root = Path(os.environ.get("KIMINA_SHARED_DATA") or Path(__file__).resolve().parents[3].parent / "shared" / "data")
    if not (root / "minif2f.jsonl").is_file():
        pytest.fail(f"shared data not found at {root}; set KIMINA_SHARED_DATA to the folder holding minif2f.jsonl")
    return root


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return shared_data()


@pytest.fixture(scope="session")
def recipe_17b() -> Recipe:
    return load_recipe("kimina-rl-1.7b")


@pytest.fixture(scope="session")
def lean_url() -> Iterator[str]:
    """The workspace's stand-in verification server (our server on lean-repl-sim REPLs)."""
    from kimina_verify.testing import sim_server

    with sim_server(max_repls=2) as url:
        yield url


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recipes use paths relative to the repository root, where `uv run apps/train` runs."""
    monkeypatch.chdir(Path(__file__).resolve().parents[3])
