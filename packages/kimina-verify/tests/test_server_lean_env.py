"""`/health` names the REPLs' Lean environment (`lean_env`), and the client keys its cache on it."""

import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from kimina_verify import Endpoint, Retries, Verifier, VerifierOptions, __version__
from kimina_verify.server.lean_env import describe_lean_env, workspace_lean_env
from kimina_verify.server.settings import ServerSettings
from kimina_verify.testing import sim_server

REV = "a3e910d1569d6b943debabe63afe6e3a3d4061ff"


def workspace(root: Path, manifest: object = None, toolchain: str | None = "leanprover/lean4:v4.15.0\n") -> Path:
    if toolchain is not None:
        (root / "lean-toolchain").write_text(toolchain, encoding="utf-8")
    if manifest is not None:
        text = manifest if isinstance(manifest, str) else json.dumps(manifest)
        (root / "lake-manifest.json").write_text(text, encoding="utf-8")
    return root


def test_workspace_toolchain_and_mathlib_revision(tmp_path: Path) -> None:
    manifest = {"version": 7, "packages": [{"name": "batteries", "rev": "x"}, {"name": "mathlib", "rev": REV}]}
    assert workspace_lean_env(workspace(tmp_path, manifest)) == f"leanprover/lean4:v4.15.0 mathlib@{REV}"
    settings = ServerSettings(project_dir=str(tmp_path), lean_version="ignored when the workspace says more")
    assert describe_lean_env(settings) == f"leanprover/lean4:v4.15.0 mathlib@{REV}"


def test_partial_or_broken_workspace(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert workspace_lean_env(workspace(tmp_path, "{not json")) == "leanprover/lean4:v4.15.0"
    assert "lake-manifest.json" in caplog.text
    other = tmp_path / "other"
    other.mkdir()
    assert workspace_lean_env(workspace(other, {"packages": [{"name": "mathlib", "rev": REV}]}, None)) == (
        f"mathlib@{REV}"
    )


def test_not_a_workspace_falls_back_to_lean_version(tmp_path: Path) -> None:
    assert describe_lean_env(ServerSettings(project_dir=str(tmp_path))) is None
    assert describe_lean_env(ServerSettings(project_dir=str(tmp_path), lean_version="v4.15.0")) == "v4.15.0"


def test_the_sim_is_named_with_its_version_and_options() -> None:
    settings = ServerSettings(repl_cmd=(sys.executable, "-m", "kimina_verify.sim", "--backticks"))
    assert describe_lean_env(settings) == f"lean-repl-sim/{__version__} --backticks"
    assert describe_lean_env(ServerSettings(repl_cmd=("/usr/bin/lean-repl-sim",))) == f"lean-repl-sim/{__version__}"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with sim_server(max_repls=1) as base:
        yield base


async def test_health_reports_it_and_the_cache_is_keyed_on_it(url: str, tmp_path: Path) -> None:
    lean_env = httpx.get(f"{url}/health").json()["lean_env"]
    assert lean_env.startswith(f"lean-repl-sim/{__version__}")
    cache = tmp_path / "verdicts.sqlite"
    async with Verifier(VerifierOptions(Endpoint(url), retries=Retries(count=0), cache=str(cache))) as verifier:
        assert await verifier.lean_env() == lean_env
        (verdict,) = await verifier.verify(["theorem t : 1 + 1 = 2 := by\n  norm_num\n"])
    assert verdict.ok
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT DISTINCT lean_env FROM results").fetchall() == [(lean_env,)]
