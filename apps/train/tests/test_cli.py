import subprocess
import sys
from pathlib import Path

import pytest
from kimina_train.cli import parse_args

APP_DIR = Path(__file__).resolve().parents[1]


def test_recipe_and_overrides_are_parsed_in_order() -> None:
    args = parse_args(["--recipe", "smoke", "trainer.total_training_steps=1", "+trainer.foo=2", "--dry-run"])
    assert args.recipe == "smoke"
    assert args.overrides == ("trainer.total_training_steps=1", "+trainer.foo=2")
    assert args.dry_run and not args.check


def test_missing_recipe_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        parse_args([])
    assert exc.value.code == 2
    assert "--recipe NAME is required" in capsys.readouterr().err


def test_several_nodes_need_a_ray_cluster(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with pytest.raises(SystemExit) as exc:
        parse_args(["--recipe", "kimina-rl-1.7b", "--nnodes", "2"])
    assert exc.value.code == 2
    assert "--ray-address" in capsys.readouterr().err


def test_ray_address_defaults_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    args = parse_args(["--recipe", "kimina-rl-1.7b", "--nnodes", "2"])
    assert (args.nnodes, args.ray_address) == (2, "10.0.0.1:6379")


def test_app_directory_runs_as_a_script() -> None:
    # What `uv run apps/train --help` executes: apps/train/__main__.py with the workspace interpreter.
    out = subprocess.run([sys.executable, str(APP_DIR), "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "usage: kimina-train" in out.stdout
    assert "uv run apps/train --recipe smoke" in out.stdout
