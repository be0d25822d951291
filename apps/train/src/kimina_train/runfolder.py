"""The run folder: everything one training run writes, so it can be inspected, resumed and reproduced."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kimina_format.lazy import lazy_exports

from kimina_train.preflight.checklist import CheckResult

__all__ = ["TrainFolder", "VERL_CONFIG", "record_launch", "write_preflight", "write_verl_config"]

if TYPE_CHECKING:
    from omegaconf import DictConfig

VERL_CONFIG = "verl_config.yaml"
"""The resolved config `main_ppo` reads (`--config-path RUN_DIR --config-name verl_config`)."""


@dataclass(frozen=True)
class TrainFolder:
    """Paths inside one run folder.

    Attributes:
        path: The folder itself (`runs/<experiment_name>` unless the recipe or `--run-dir` says otherwise).
    """

    path: Path

    @property
    def verl_config(self) -> Path:
        """The resolved verl config of the latest launch."""
        return self.path / VERL_CONFIG

    @property
    def log(self) -> Path:
        """Console output of every launch, appended."""
        return self.path / "train.log"

    @property
    def launches(self) -> Path:
        """One JSON line per launch: time, command line, recipe, overrides, versions, git commit."""
        return self.path / "launches.jsonl"

    @property
    def preflight(self) -> Path:
        """The latest preflight checklist, as JSON."""
        return self.path / "preflight.json"

    @property
    def checkpoints(self) -> Path:
        """Where checkpoints go (`trainer.default_local_dir` points here)."""
        return self.path / "checkpoints"

    @property
    def tensorboard(self) -> Path:
        """Verl's tensorboard logger writes here (`TENSORBOARD_DIR`)."""
        return self.path / "tensorboard"

    @property
    def metrics(self) -> Path:
        """Verl's step metrics, one JSON line per step, when `trainer.logger` includes `file`."""
        return self.path / "metrics.jsonl"

    @property
    def summary(self) -> Path:
        """kimina-train's summary of the latest launch: per-step reward, fix turns, replays, verifier checks."""
        return self.path / "summary.json"

    @property
    def plot(self) -> Path:
        """The step metrics, plotted."""
        return self.path / "metrics.png"

    def create(self) -> TrainFolder:
        """Make the folder (and its parents) if needed; return self."""
        self.path.mkdir(parents=True, exist_ok=True)
        return self


def _versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for dist in ("kimina-train", "kimina-rl", "kimina-verify", "kimina-data", "verl", "vllm", "torch", "transformers"):
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            found[dist] = None
    return found


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def write_verl_config(run: TrainFolder, config: DictConfig) -> Path:
    """Write `config` fully resolved to the run folder, where `main_ppo` and any later rerun read it."""
    from omegaconf import OmegaConf

    run.verl_config.write_text(
        "# Written by kimina-train: the resolved verl config of this run's latest launch.\n"
        f"# Rerun by hand: python -m verl.trainer.main_ppo --config-path {run.path.absolute()} "
        f"--config-name {Path(VERL_CONFIG).stem}\n" + OmegaConf.to_yaml(config, resolve=True)
    )
    return run.verl_config


def write_preflight(run: TrainFolder, results: Sequence[CheckResult]) -> None:
    """Record the checklist the launch passed."""
    run.preflight.write_text(json.dumps([asdict(r) for r in results], indent=2) + "\n")


def record_launch(run: TrainFolder, *, recipe: str, overrides: Sequence[str], mode: str, **extra: Any) -> None:
    """Append one line to `launches.jsonl` saying what was launched, how, and with which versions."""
    entry = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "argv": sys.argv,
        "recipe": recipe,
        "overrides": list(overrides),
        "mode": mode,
        "git_commit": _git_commit(),
        "versions": _versions(),
        **extra,
    }
    with run.launches.open("a") as f:
        f.write(json.dumps(entry) + "\n")


# Renamed in kimina-train 0.5 (kimina-eval's `RunFolder` is an evaluation's or a search's folder); the old name warns.
__getattr__, __dir__ = lazy_exports(__name__, deprecated={"RunFolder": ("kimina_train.runfolder", "TrainFolder")})
