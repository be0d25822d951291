"""Config check: verl's own `validate_config` (batch sizes against GPUs and rollouts, lengths, modes)."""

from __future__ import annotations

import contextlib
import io
from typing import TYPE_CHECKING

from kimina_train.preflight.checklist import CheckResult, Status

if TYPE_CHECKING:
    from omegaconf import DictConfig


def check_verl_config(config: DictConfig) -> CheckResult:
    """Run the checks `main_ppo` runs first, so a bad override fails here instead of after Ray started."""
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    try:
        # validate_config prints a progress line per check; the checklist says the same in one line.
        with contextlib.redirect_stdout(io.StringIO()):
            validate_config(
                config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config)
            )
    except Exception as exc:  # verl raises AssertionError, ValueError, omegaconf errors ... for a bad config
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return CheckResult(
            "config", Status.FAIL, f"verl rejects the config: {text}", "fix the recipe key or override it names"
        )
    return CheckResult("config", Status.OK, "verl's validate_config passed (batch sizes, GPUs, lengths)")
