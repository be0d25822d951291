"""Shared fixtures: composed recipes (composition imports verl once), a sim server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kimina_train.recipe import Recipe, load_recipe


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
