"""Model check: the starting checkpoint is a local folder with a config and tokenizer, or a reachable hub model."""

from __future__ import annotations

import os
from pathlib import Path

from kimina_train.preflight.checklist import CheckResult, Status

__all__ = ["check_model"]

_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model")


def _looks_like_path(ref: str) -> bool:
    return ref.startswith(("/", "./", "../", "~")) or Path(ref).exists() or ref.count("/") != 1


def _check_local_model(path: Path, *, buildable: bool) -> CheckResult:
    """A local model folder must hold `config.json` and a tokenizer.

    Args:
        path: The model folder.
        buildable: The recipe builds a tiny model there when it is missing (the smoke recipe).
    """
    if not path.exists():
        if buildable:
            return CheckResult("model", Status.WARN, f"{path} does not exist yet", "prepare builds a tiny model there")
        return CheckResult(
            "model",
            Status.FAIL,
            f"model folder {path} does not exist",
            "set actor_rollout_ref.model.path to a local folder or a hub id (AI-MO/Kimina-Prover-Distill-1.7B)",
        )
    missing = [] if (path / "config.json").is_file() else ["config.json"]
    if not any((path / name).is_file() for name in _TOKENIZER_FILES):
        missing.append("a tokenizer")
    if missing:
        return CheckResult(
            "model",
            Status.FAIL,
            f"model folder {path} has no {' and no '.join(missing)}",
            "point actor_rollout_ref.model.path at a folder written by save_pretrained",
        )
    return CheckResult("model", Status.OK, f"local model {path}")


def _check_hub_model(repo_id: str) -> CheckResult:
    """A hub model must be in the local cache or reachable on the hub (verl downloads it at launch)."""
    from huggingface_hub import HfApi, try_to_load_from_cache

    cached = try_to_load_from_cache(repo_id, "config.json")
    if isinstance(cached, str):
        return CheckResult("model", Status.OK, f"{repo_id} (in the local Hugging Face cache)")
    if os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0"):
        return CheckResult(
            "model",
            Status.FAIL,
            f"{repo_id} is not in the local Hugging Face cache and HF_HUB_OFFLINE is set",
            f"run `huggingface-cli download {repo_id}` on a machine with internet, or unset HF_HUB_OFFLINE",
        )
    try:
        HfApi().model_info(repo_id, timeout=15)
    except Exception as exc:  # the hub client raises HTTP, connection and timeout errors of several libraries
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return CheckResult(
            "model",
            Status.FAIL,
            f"{repo_id} is not cached and the hub did not answer for it ({reason})",
            f"check the id and the network, or download it first: `huggingface-cli download {repo_id}`",
        )
    return CheckResult("model", Status.OK, f"{repo_id} (on the hub; downloaded at launch)")


def check_model(ref: str, *, buildable: bool = False) -> CheckResult:
    """Check `actor_rollout_ref.model.path`: a local folder or an `org/name` hub id."""
    if buildable or _looks_like_path(ref):
        return _check_local_model(Path(ref).expanduser(), buildable=buildable)
    return _check_hub_model(ref)
