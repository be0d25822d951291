"""The `kimina:` section of a recipe: what the app needs beyond verl's config (hardware, verifier, data, CPU runs)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


class SettingsError(ValueError):
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


def _build[T: DataclassInstance](cls: type[T], raw: Any, where: str) -> T:
    if raw is None:
        return cls()
    if not isinstance(raw, dict):
        raise SettingsError(f"{where} must be a mapping, got {type(raw).__name__}")
    _reject_unknown(raw, {f.name for f in fields(cls)}, where)
    try:
        return cls(**raw)
    except TypeError as exc:  # a required key is missing
        raise SettingsError(f"{where}: {exc}") from None


def closest(name: str, known: Any) -> str | None:
    """The known name closest to a misspelt one, if any is close."""
    close = difflib.get_close_matches(name, [str(k) for k in known], n=1, cutoff=0.6)
    return close[0] if close else None


def suggest(name: str, known: Any) -> str:
    """`; did you mean X?` for the known name closest to a misspelt one, or an empty string."""
    match = closest(name, known)
    return f"; did you mean {match}?" if match else ""


def _reject_unknown(raw: dict[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(raw) - known)
    if unknown:
        raise SettingsError(
            f"unknown key(s) in {where}: {', '.join(unknown)} (known: {', '.join(sorted(known))})"
            + suggest(unknown[0], known)
        )


def parse_settings(raw: dict[str, Any]) -> TrainSettings:
    """Build `TrainSettings` from a recipe's resolved `kimina:` mapping, rejecting unknown keys.

    Args:
        raw: The `kimina:` section as plain Python data.

    Raises:
        SettingsError: On an unknown key or a value of the wrong shape.
    """
    raw = dict(raw)
    data = raw.pop("data", None) or {}
    if not isinstance(data, dict):
        raise SettingsError("kimina.data must be a mapping with `promptset` and/or `minif2f`")
    minif2f = data.pop("minif2f", None)
    promptset = data.pop("promptset", None)
    reference_rows = data.pop("reference_rows", None)
    _reject_unknown(data, {"minif2f", "promptset", "reference_rows"}, "kimina.data")
    if promptset is not None and not isinstance(promptset, dict):
        raise SettingsError("kimina.data.promptset must be a mapping of kimina-data BuildConfig fields")
    cpu = raw.pop("cpu", None)
    nested: dict[str, Any] = {
        "hardware": _build(HardwareSpec, raw.pop("hardware", None), "kimina.hardware"),
        "verifier": _build(VerifierSpec, raw.pop("verifier", None), "kimina.verifier"),
        "cpu": None if cpu is None else _build(CpuSpec, cpu, "kimina.cpu"),
        "data": DataSpec(
            promptset=promptset,
            minif2f=None if minif2f is None else _build(MiniF2FSpec, minif2f, "kimina.data.minif2f"),
            reference_rows=(
                None
                if reference_rows is None
                else _build(ReferenceRowsSpec, reference_rows, "kimina.data.reference_rows")
            ),
        ),
    }
    return _build(TrainSettings, {**raw, **nested}, "kimina")
