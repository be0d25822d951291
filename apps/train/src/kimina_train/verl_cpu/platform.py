"""verl's CPU platform: `torch.cpu` where it has the call, no-ops for a GPU's caches, memory and RNG streams."""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import Any

import torch  # noqa: TID253  # this module is loaded by verl's platform plugin, inside a verl process
from verl.plugin.platform import PlatformBase  # noqa: TID253

__all__ = ["DEVICE_MODULE", "PLATFORM_NAME", "PlatformCPU", "RAY_RESOURCE"]

PLATFORM_NAME = "cpu"
"""`VERL_PLATFORM=cpu` selects this platform in every process that imports verl."""

RAY_RESOURCE = "GPU"
"""The Ray resource a "device" is counted in. verl's resource check counts only resources named GPU or NPU
(`single_controller/ray/base.py` `ResourcePoolManager._check_resource_available`), so a CPU run starts Ray with
logical GPUs (`ray_init.num_gpus`): one per trainer process, no hardware behind it."""


class _CpuDeviceModule(types.ModuleType):
    """What verl calls on `get_torch_device()` (`torch.cuda` on a GPU), answered for the CPU.

    Calls `torch.cpu` has (`synchronize`, `current_stream`, `Stream`, ...) go to it; caches, memory statistics and
    per-device RNG state, which a CPU does not have apart from the process's, are no-ops or the process's own.
    """

    def __init__(self) -> None:
        super().__init__("kimina_train.verl_cpu.device", "torch.cpu as verl's device module")

    def __getattr__(self, name: str) -> Any:
        return getattr(torch.cpu, name)

    # verl releases cached device memory between phases; the CPU allocator keeps no cache to release.
    def empty_cache(self) -> None:
        """No cache to empty."""

    def ipc_collect(self) -> None:
        """No inter-process memory handles to collect."""

    def reset_peak_memory_stats(self, device: Any = None) -> None:
        """No device memory statistics."""

    def set_per_process_memory_fraction(self, fraction: float, device: Any = None) -> None:
        """No device memory to budget."""

    def memory_allocated(self, device: Any = None) -> int:
        """No device memory (verl logs it)."""
        return 0

    memory_reserved = max_memory_allocated = max_memory_reserved = memory_allocated

    def mem_get_info(self, device: Any = None) -> tuple[int, int]:
        """Free and total system memory, which is what the CPU computes in."""
        import psutil

        memory = psutil.virtual_memory()
        return int(memory.available), int(memory.total)

    def get_device_name(self, device: Any = None) -> str:
        """A name for logs."""
        return "cpu"

    def manual_seed(self, seed: int) -> None:
        """Seed the process's generator, the only one the CPU has."""
        torch.manual_seed(seed)

    manual_seed_all = manual_seed

    def get_rng_state(self, device: Any = None) -> torch.Tensor:
        """The process's RNG state (verl saves it in checkpoints next to the device's)."""
        return torch.get_rng_state()

    def set_rng_state(self, state: torch.Tensor, device: Any = None) -> None:
        """Restore the process's RNG state."""
        torch.set_rng_state(state)


DEVICE_MODULE = _CpuDeviceModule()


class PlatformCPU(PlatformBase):  # type: ignore[misc]  # verl is untyped (mypy skips it)
    """verl's platform interface for training on CPU, with gloo for collectives."""

    @property
    def device_name(self) -> str:
        """`trainer.device` and the torch device type."""
        return "cpu"

    @property
    def vendor_name(self) -> str:
        """No accelerator vendor."""
        return "cpu"

    @property
    def device_module(self) -> types.ModuleType:
        """`torch.cpu`, completed with the calls verl makes on a GPU's module."""
        return DEVICE_MODULE

    def is_available(self) -> bool:
        """Always: every process has a CPU."""
        return True

    def is_platform_available(self, use_smi_check: bool = False) -> bool:
        """Never chosen by auto-detection: only `VERL_PLATFORM=cpu` selects it."""
        return False

    def current_device(self) -> Any:  # verl's signature says int
        """`"cpu"`: verl moves tensors with `.to(get_device_id())`, where an int would mean `cuda:N`."""
        return "cpu"

    def device_count(self) -> int:
        """One device per trainer process."""
        return 1

    def set_device(self, device_index: int) -> None:
        """Nothing to select."""

    def synchronize(self, device_index: int | None = None) -> None:
        """CPU work is synchronous."""

    def manual_seed(self, seed: int) -> None:
        """Seed the process's generator."""
        torch.manual_seed(seed)

    def manual_seed_all(self, seed: int) -> None:
        """Seed the process's generator."""
        torch.manual_seed(seed)

    def set_allocator_settings(self, settings: str) -> None:
        """The CPU allocator has no such settings (verl asks for expandable segments)."""

    def empty_cache(self) -> None:
        """No cache to empty."""

    def get_device_capability(self, device_index: int = 0) -> tuple[int | None, int | None]:
        """No compute capability: verl then skips every CUDA-generation switch."""
        return None, None

    def communication_backend_name(self) -> str:
        """gloo, torch's CPU backend."""
        return "gloo"

    def visible_devices_envvar(self) -> str:
        """The variable Ray sets for the logical GPUs a CPU run is given; torch ignores it without CUDA."""
        return "CUDA_VISIBLE_DEVICES"

    @contextlib.contextmanager
    def nvtx_range(self, msg: str) -> Iterator[None]:
        """No profiler ranges."""
        yield

    def profiler_start(self) -> None:
        """No device profiler."""

    def profiler_stop(self) -> None:
        """No device profiler."""

    def ray_resource_name(self) -> str:
        """See `RAY_RESOURCE`."""
        return RAY_RESOURCE

    def ray_noset_envvars(self) -> list[str]:
        """Ray may set `CUDA_VISIBLE_DEVICES` for the logical GPUs: nothing reads it on CPU."""
        return []

    def is_ipc_supported(self) -> bool:
        """Weights reach the rollout through Ray's object store, not device IPC handles."""
        return False

    def cudart(self) -> Any:
        """No CUDA runtime."""
        return None
