"""The `kimina:` section of a recipe: what the app needs beyond verl's config (hardware, verifier, data, rehearsal)."""

from __future__ import annotations

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
class DataSpec:
    """How to build the recipe's `data.train_files` / `data.val_files` when they are missing.

    Attributes:
        promptset: Fields of kimina-data's `BuildConfig` (as in `kimina-data build --config`), writing
            `<out>/train.parquet` and `<out>/val.parquet`; None builds no promptset.
        minif2f: A miniF2F build, or None.
    """

    promptset: dict[str, Any] | None = None
    minif2f: MiniF2FSpec | None = None


@dataclass(frozen=True)
class RehearsalSpec:
    """The CPU rehearsal of one RL step, used by the smoke recipe when no GPU is present.

    Attributes:
        problems: miniF2F problems to sample (a group per problem).
        max_new_tokens: Token budget of each sampled completion.
        reference_completions: Add to each group one real Kimina-Prover completion of the same problem (from the
            completions kimina-train ships), so that rewards, advantages and the loss are not all zero with a random
            model.
        seed: Seed for sampling.
    """

    problems: int = 2
    max_new_tokens: int = 48
    reference_completions: bool = True
    seed: int = 0


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
        rehearsal: Settings of the CPU rehearsal, or None if the recipe needs GPUs.
    """

    description: str = ""
    run_dir: str = "runs/default"
    hardware: HardwareSpec = field(default_factory=HardwareSpec)
    verifier: VerifierSpec = field(default_factory=VerifierSpec)
    data: DataSpec = field(default_factory=DataSpec)
    build_tiny_model: bool = False
    rehearsal: RehearsalSpec | None = None


def _build[T: DataclassInstance](cls: type[T], raw: Any, where: str) -> T:
    if raw is None:
        return cls()
    if not isinstance(raw, dict):
        raise SettingsError(f"{where} must be a mapping, got {type(raw).__name__}")
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise SettingsError(f"unknown key(s) in {where}: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    try:
        return cls(**raw)
    except TypeError as exc:  # a required key is missing
        raise SettingsError(f"{where}: {exc}") from None


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
    if data:
        raise SettingsError(f"unknown key(s) in kimina.data: {', '.join(sorted(data))} (known: minif2f, promptset)")
    if promptset is not None and not isinstance(promptset, dict):
        raise SettingsError("kimina.data.promptset must be a mapping of kimina-data BuildConfig fields")
    rehearsal = raw.pop("rehearsal", None)
    nested: dict[str, Any] = {
        "hardware": _build(HardwareSpec, raw.pop("hardware", None), "kimina.hardware"),
        "verifier": _build(VerifierSpec, raw.pop("verifier", None), "kimina.verifier"),
        "rehearsal": None if rehearsal is None else _build(RehearsalSpec, rehearsal, "kimina.rehearsal"),
        "data": DataSpec(
            promptset=promptset,
            minif2f=None if minif2f is None else _build(MiniF2FSpec, minif2f, "kimina.data.minif2f"),
        ),
    }
    return _build(TrainSettings, {**raw, **nested}, "kimina")
