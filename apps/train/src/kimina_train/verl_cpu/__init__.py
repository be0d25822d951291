"""kimina-train's verl plugin: verl's own trainer (`main_ppo`) on CPU, for the smoke recipe on a machine without GPU.

verl loads this module in every process that imports verl (the `verl.plugins` entry point of kimina-train; or
`VERL_USE_EXTERNAL_MODULES=kimina_train.verl_cpu`). It does nothing unless `VERL_PLATFORM=cpu`; then it registers a
CPU platform, verl's FSDP engines for the CPU, a gloo process group and the `hf` rollout (a transformers server with
per-token log-probs and weight sync from the actor), all through verl's registries (see `registration`).
"""

from __future__ import annotations

import logging
import os

__all__ = ["PLATFORM_ENV", "activate", "enabled"]

logger = logging.getLogger(__name__)

PLATFORM_ENV = "VERL_PLATFORM"
"""verl's own switch (`plugin/platform/platform_manager.py`); `cpu` turns this plugin on."""


def enabled(env: dict[str, str] | None = None) -> bool:
    """Whether the environment selects the CPU platform."""
    return (env if env is not None else os.environ).get(PLATFORM_ENV, "").strip().lower() == "cpu"


def activate() -> bool:
    """Register everything in this process when `VERL_PLATFORM=cpu`; True if it did."""
    if not enabled():
        return False
    # verl swallows a plugin's import error at debug level: say it loudly instead, or the run fails later, obscurely.
    try:
        from kimina_train.verl_cpu.registration import register_all

        register_all()
    except Exception:
        logger.exception("kimina-train's verl CPU plugin failed to load; verl cannot run on CPU in this process")
        raise
    return True


activate()
