"""The `kimina:` section of a recipe: what the app needs beyond verl's config (hardware, verifier, data, CPU runs)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kimina_verify.config import ConfigError, parse_config

__all__ = [
    "CpuSpec",
    "DataSpec",
    "HardwareSpec",
    "MiniF2FSpec",
    "ReferenceRowsSpec",
    "SettingsError",
    "TrainSettings",
    "VerifierSpec",
    "parse_settings",
]


class SettingsError(ConfigError):
    """The recipe's `kimina:` section is malformed; the message names the key."""


@dataclass(frozen=True)
class HardwareSpec:
    """The accelerators a recipe was sized for; the count comes from verl's `trainer.n_gpus_per_node` and `nnodes`.

    Attributes:
        gpu_type: Name fragment the GPUs should match (`H100`), or None for any; a mismatch is a warning only.
        min_gpu_memory_gib: Memory each GPU must have, in GiB.
        min_free_disk_gib: Free space the checkpoint folder's disk must have, in GiB.
    """

    gpu_type: str | None = None
    min_gpu_memory_gib: float = 0.0
    min_free_disk_gib: float = 1.0


@dataclass(frozen=True)
class VerifierSpec:
    """How the app gets the Lean verification server; its URL and key live in kimina-rl's `kimina_rl.verifier`.

    Attributes:
        start: Start a `kimina-verify serve` for the run and point the reward at it: on a real Lean workspace when
            `$KIMINA_LEAN_WORKSPACE` is set, otherwise on `lean-repl-sim` (announced loudly: it proves nothing).
        canary: Check one known-valid and one known-invalid proof before launching.
        timeout_s: Seconds to wait for the health and canary answers.
    """

    start: bool = False
    canary: bool = True
    timeout_s: float = 120.0


@dataclass(frozen=True)
class MiniF2FSpec:
    """A miniF2F build with kimina-data's `build_minif2f`: one verl parquet per split (`minif2f_valid.parquet`, ...).

    Attributes:
        out: Output folder.
        source: A miniF2F file or hub id (`AI-MO/minif2f_test`); None means the miniF2F file shipped with
            kimina-data.
        rectified: Use the rectified statements where a row has one.
    """

    out: str
    source: str | None = None
    rectified: bool = True


@dataclass(frozen=True)
class ReferenceRowsSpec:
    """The rows of a verl parquet whose problem has a real Kimina completion shipped with kimina-train.

    The smoke recipe trains on them, so that its CPU rollout's reference replay can answer every prompt.

    Attributes:
        source: The parquet to pick from (the `minif2f` build's `minif2f_test.parquet`, built first if missing).
        out: The parquet written.
        rows: How many rows: those with the shortest usable reference come first.
    """

    source: str
    out: str
    rows: int = 8

    def __post_init__(self) -> None:
        if not isinstance(self.rows, int) or isinstance(self.rows, bool) or self.rows < 1:
            raise SettingsError(f"kimina.data.reference_rows.rows must be a positive integer, got {self.rows!r}")


@dataclass(frozen=True)
class DataSpec:
    """How to build the recipe's `data.train_files` / `data.val_files` when they are missing.

    Attributes:
        promptset: Fields of kimina-data's `BuildConfig` (as in `kimina-data build --config`), writing
            `<out>/train.parquet` and `<out>/val.parquet`; None builds no promptset.
        minif2f: A miniF2F build, or None.
        reference_rows: Rows with a shipped reference completion, picked from a built file, or None.
    """

    promptset: dict[str, Any] | None = None
    minif2f: MiniF2FSpec | None = None
    reference_rows: ReferenceRowsSpec | None = None


@dataclass(frozen=True)
class CpuSpec:
    """How a recipe runs on a machine without GPU: verl's own trainer on CPU, through kimina-train's verl plugin.

    Attributes:
        overrides: Hydra overrides applied after the recipe and before the command line's when no GPU is found
            (`trainer.device=cpu`, `actor_rollout_ref.rollout.name=hf`, ...).
    """

    overrides: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        raw: object = self.overrides  # YAML gives a list
        if not isinstance(raw, list | tuple) or not all(isinstance(o, str) for o in raw):
            raise SettingsError("kimina.cpu.overrides must be a list of Hydra overrides (key=value strings)")
        object.__setattr__(self, "overrides", tuple(raw))


@dataclass(frozen=True)
class TrainSettings:
    """Everything in a recipe's `kimina:` section.

    Attributes:
        description: One line saying what the recipe is for.
        run_dir: The run folder: resolved config, logs, preflight results, checkpoints.
        hardware: GPUs and disk the recipe needs.
        verifier: The verification server.
        data: How kimina-data builds missing train and validation files.
        build_tiny_model: Build a tiny random model at `actor_rollout_ref.model.path` when nothing is there.
        cpu: How the recipe runs without GPU, or None if it needs GPUs.
    """

    description: str = ""
    run_dir: str = "runs/default"
    hardware: HardwareSpec = field(default_factory=HardwareSpec)
    verifier: VerifierSpec = field(default_factory=VerifierSpec)
    data: DataSpec = field(default_factory=DataSpec)
    build_tiny_model: bool = False
    cpu: CpuSpec | None = None


def parse_settings(raw: dict[str, Any]) -> TrainSettings:
    """Build `TrainSettings` from a recipe's resolved `kimina:` mapping, with kimina-verify's config loader.

    Args:
        raw: The `kimina:` section as plain Python data.

    Raises:
        SettingsError: One line naming the key: an unknown one (with the closest known key), a missing one, or a
            value of the wrong type.
    """
    return parse_config(TrainSettings, raw, where="kimina", error=SettingsError)
