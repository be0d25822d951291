"""Machine checks: free disk for checkpoints, the verl / vLLM / torch versions, and logger credentials."""

from __future__ import annotations

import os
import shutil
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from kimina_train.preflight.checklist import CheckResult, Status

__all__ = ["VERL_VERSION", "VLLM_INSTALL", "VLLM_VERSION", "check_disk", "check_logging", "check_versions"]

VERL_VERSION = "0.9.1"
"""The verl release kimina-rl's reward, agent loop and config are written against."""

VLLM_VERSION = "0.24.0"
"""The vLLM release verl 0.9.1 is tested with (its `vllm` extra pins it)."""

VLLM_INSTALL = "uv sync --all-packages --extra vllm"


def _installed(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def _existing_parent(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_disk(checkpoint_dir: Path, min_free_gib: float) -> CheckResult:
    """Free space on the disk that will hold `checkpoint_dir` (which may not exist yet) against `min_free_gib`."""
    where = _existing_parent(checkpoint_dir)
    free_gib = shutil.disk_usage(where).free / 2**30
    detail = f"{free_gib:.0f} GiB free at {where} for checkpoints in {checkpoint_dir}, recipe needs {min_free_gib:g}"
    if free_gib < min_free_gib:
        return CheckResult(
            "disk",
            Status.FAIL,
            detail,
            "free space, point trainer.default_local_dir at a bigger disk, or set trainer.max_actor_ckpt_to_keep",
        )
    return CheckResult("disk", Status.OK, detail)


def check_versions(*, needs_vllm: bool) -> CheckResult:
    """Verl must be 0.9.1; vLLM must be installed (ideally 0.24.0) when the rollout runs on it."""
    verl = _installed("verl")
    torch = _installed("torch") or "missing"
    if verl != VERL_VERSION:
        return CheckResult(
            "versions",
            Status.FAIL,
            f"verl {verl or 'is not installed'}; kimina-rl is written against verl {VERL_VERSION}",
            "uv sync --all-packages",
        )
    if not needs_vllm:
        return CheckResult("versions", Status.OK, f"verl {verl}, torch {torch} (vLLM not needed)")
    vllm = _installed("vllm")
    if vllm is None:
        return CheckResult("versions", Status.FAIL, f"verl {verl}, but vLLM is not installed", VLLM_INSTALL)
    found = f"verl {verl}, vLLM {vllm}, torch {torch}"
    if vllm != VLLM_VERSION:
        return CheckResult("versions", Status.WARN, f"{found}; verl {verl} is tested with vLLM {VLLM_VERSION}")
    return CheckResult("versions", Status.OK, found)


def check_logging(loggers: list[str]) -> CheckResult:
    """Wandb needs credentials before the run starts; verl would otherwise stop at its first log line."""
    if "wandb" not in loggers:
        return CheckResult("logging", Status.OK, ", ".join(loggers))
    offline = os.environ.get("WANDB_MODE") in ("offline", "disabled")
    netrc = Path(os.environ.get("NETRC", Path.home() / ".netrc"))
    logged_in = bool(os.environ.get("WANDB_API_KEY")) or (netrc.is_file() and "api.wandb.ai" in netrc.read_text())
    if offline or logged_in:
        return CheckResult("logging", Status.OK, ", ".join(loggers) + (" (wandb offline)" if offline else ""))
    return CheckResult(
        "logging",
        Status.FAIL,
        "trainer.logger includes wandb, but WANDB_API_KEY is unset and `wandb login` was never run",
        "export WANDB_API_KEY=..., or WANDB_MODE=offline, or drop wandb from trainer.logger",
    )
