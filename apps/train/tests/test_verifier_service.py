from pathlib import Path

import httpx
import pytest
from kimina_train.verifier_service import SIMULATED_MARKER, VerifierStartError, running_verifier


def test_the_stand_in_is_started_and_announced_in_the_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KIMINA_LEAN_WORKSPACE", raising=False)
    with running_verifier(tmp_path / "run") as server:
        assert server.simulated
        assert httpx.get(f"{server.url}/health", timeout=10).status_code == 200
    assert "TEST DOUBLE" in (tmp_path / "run" / SIMULATED_MARKER).read_text()
    with pytest.raises(httpx.ConnectError):  # stopped with the block
        httpx.get(f"{server.url}/health", timeout=5)


def test_a_broken_lean_workspace_fails_fast_with_the_servers_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / SIMULATED_MARKER).write_text("from an earlier run")
    monkeypatch.setenv("KIMINA_LEAN_WORKSPACE", str(tmp_path / "no-workspace"))
    with pytest.raises(VerifierStartError, match="kimina-verify serve exited with code 2") as exc:
        with running_verifier(tmp_path / "run"):
            pass
    assert "no-workspace/mathlib4 is not a directory" in str(exc.value)
    assert not (tmp_path / "run" / SIMULATED_MARKER).exists()  # a real workspace was asked for: no stale notice
