"""Where the CPU plugin meets verl: its registries, one private dict among them, and the gloo process group.

Everything that reaches into verl is here, so a verl release that moves a piece breaks one file, and
`tests/test_verl_cpu.py` says which line.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import logging
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from kimina_train.verl_cpu.names import ROLLOUT_NAME

__all__ = [
    "ADAPTER",
    "ENGINE_MODULE",
    "REPLICA_MODULE",
    "ROLLOUT_BASE_MODULE",
    "after_import",
    "init_gloo_process_group",
    "register_all",
    "register_rollout_class",
]

logger = logging.getLogger(__name__)


ADAPTER = "kimina_train.verl_cpu.rollout.HFServerAdapter"
"""The class verl's trainer processes build for `rollout.name=hf` (via `get_rollout_class`)."""

ENGINE_MODULE = "verl.workers.engine.fsdp.transformer_impl"
ROLLOUT_BASE_MODULE = "verl.workers.rollout.base"
REPLICA_MODULE = "verl.workers.rollout.replica"


def _register_platform() -> None:
    """`PlatformRegistry.register("cpu")`: verl's own extension point; `VERL_PLATFORM=cpu` then selects it."""
    from verl.plugin.platform import PlatformRegistry

    from kimina_train.verl_cpu.platform import PLATFORM_NAME, PlatformCPU

    PlatformRegistry.register(platform=PLATFORM_NAME)(PlatformCPU)


def _register_engines(module: ModuleType) -> None:
    """The FSDP engines for `device="cpu"` too (verl registers them for cuda and npu only).

    FSDP2 with gloo runs on CPU unchanged; only the registry's device list keeps it from being picked.
    """
    from verl.workers.engine import EngineRegistry

    for model_type, engine in (
        ("language_model", module.FSDPEngineWithLMHead),
        ("value_model", module.FSDPEngineWithValueHead),
    ):
        EngineRegistry.register(model_type=model_type, backend=["fsdp", "fsdp2"], device="cpu")(engine)


def register_rollout_class(module: ModuleType) -> None:
    """Make `get_rollout_class("hf", "async")` return our adapter.

    verl 0.9.1 has no function to register a rollout class: `get_rollout_class` reads the module-private dict
    `_ROLLOUT_REGISTRY` (`workers/rollout/base.py:89`, keyed `(name, mode)`), so the entry goes straight into it.
    `test_verl_cpu.py::test_verl_still_reads_rollout_classes_from_its_private_registry` fails when that changes.
    """
    registry: dict[tuple[str, str], str] = module._ROLLOUT_REGISTRY
    registry[(ROLLOUT_NAME, "async")] = ADAPTER


def _register_replica(module: ModuleType) -> None:
    """`RolloutReplicaRegistry.register("hf", ...)`: verl's own extension point for rollout servers."""

    def load() -> type:
        from kimina_train.verl_cpu.rollout import HFReplica

        return HFReplica

    module.RolloutReplicaRegistry.register(ROLLOUT_NAME, load)


def init_gloo_process_group(env: dict[str, str] | None = None) -> bool:
    """Create the gloo process group of a verl worker-group process before verl does; True if created.

    verl's `initialize_global_process_group_ray` (`utils/distributed.py:89`, called from
    `workers/engine_workers.py:89`) asks torch for `f"cpu:gloo,{device}:{backend}"`, which on CPU is
    `"cpu:gloo,cpu:gloo"` and torch rejects (a device type named twice). It creates the group only
    `if not torch.distributed.is_initialized()`, so one made here first is the one verl uses.
    Worker-group processes are the ones verl starts with `WG_BACKEND=ray` and `RANK`/`WORLD_SIZE`/`MASTER_ADDR`/
    `MASTER_PORT` in their environment; in any other process this does nothing.
    """
    env = dict(os.environ) if env is None else env
    if env.get("WG_BACKEND") != "ray" or not all(key in env for key in ("RANK", "WORLD_SIZE", "MASTER_ADDR")):
        return False
    import torch.distributed

    if torch.distributed.is_initialized():
        return False
    torch.distributed.init_process_group(
        backend="gloo",
        rank=int(env["RANK"]),
        world_size=int(env["WORLD_SIZE"]),
        init_method=env.get("DIST_INIT_METHOD") or "env://",
    )
    return True


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a callback right after a named module has been executed, whenever (and in whichever process) it is.

    The engines, the rollout registry and the replica registry live in heavy verl modules that only some of a
    run's processes import; registering into them at their own import costs the other processes nothing.
    """

    def __init__(self, hooks: dict[str, Callable[[ModuleType], None]]) -> None:
        self._hooks = hooks

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        hook = self._hooks.get(fullname)
        if hook is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _HookedLoader(spec.loader, lambda module: self._run(fullname, module))
        return spec

    def _run(self, name: str, module: ModuleType) -> None:
        hook = self._hooks.pop(name, None)
        if hook is not None:
            hook(module)


class _HookedLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader, after: Callable[[ModuleType], None]) -> None:
        self._loader = loader
        self._after = after

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._after(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ... for tracebacks and inspect
        return getattr(self._loader, name)


def after_import(hooks: dict[str, Callable[[ModuleType], None]]) -> None:
    """Run each hook when its module is imported, or now for a module already imported."""
    pending = {}
    for name, hook in hooks.items():
        if name in sys.modules:
            hook(sys.modules[name])
        else:
            pending[name] = hook
    if pending:
        sys.meta_path.insert(0, _AfterImport(pending))


def register_all() -> None:
    """Everything a CPU run needs, in this process: the platform now, the rest as verl imports it."""
    _register_platform()
    after_import(
        {
            ENGINE_MODULE: _register_engines,
            ROLLOUT_BASE_MODULE: register_rollout_class,
            REPLICA_MODULE: _register_replica,
        }
    )
    if init_gloo_process_group():
        logger.info("kimina verl_cpu: gloo process group of rank %s created", os.environ.get("RANK"))
