"""The verl CPU plugin: loaded by verl's entry point, inert unless VERL_PLATFORM=cpu, and the verl internals it relies on.

The tests that import verl with the plugin on run in a subprocess: the plugin registers into verl's process-wide
registries, which this test process shares with every other test.
"""

import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _verl_process(code: str, **env: str) -> dict[str, object]:
    """Run `code` in a fresh interpreter that imports verl; it prints one JSON object on its last line."""
    environment = {k: v for k, v in os.environ.items() if k not in ("VERL_PLATFORM", "WG_BACKEND", "RANK")}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**environment, **env},
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_kimina_train_declares_the_plugin_to_verl() -> None:
    from importlib.metadata import entry_points

    (plugin,) = [ep for ep in entry_points(group="verl.plugins") if ep.value.startswith("kimina_train")]
    assert plugin.value == "kimina_train.verl_cpu"


def test_the_plugin_is_inert_unless_verl_platform_is_cpu() -> None:
    found = _verl_process(
        """
        import json, sys, verl
        from verl.plugin.platform import PlatformRegistry
        print(json.dumps({"registered": "cpu" in PlatformRegistry.registered_names(),
                          "hooks": [type(f).__name__ for f in sys.meta_path if "kimina" in type(f).__module__]}))
        """
    )
    assert found == {"registered": False, "hooks": []}


def test_with_verl_platform_cpu_verl_trains_on_cpu_with_our_engines_rollout_and_gloo() -> None:
    found = _verl_process(
        """
        import json, verl
        from verl.utils.device import get_device_id, get_device_name, get_nccl_backend, get_resource_name
        from verl.workers.engine import EngineRegistry
        from verl.workers.engine.fsdp.transformer_impl import FSDPEngineWithLMHead
        from verl.workers.rollout.base import get_rollout_class
        from verl.workers.rollout.replica import get_rollout_replica_class
        import torch.distributed
        from verl.utils.distributed import initialize_global_process_group_ray
        # What verl's worker-group process does first: our group exists, so verl's own call keeps it.
        initialize_global_process_group_ray()
        print(json.dumps({
            "device": [get_device_name(), get_device_id(), get_nccl_backend(), get_resource_name()],
            "engine": EngineRegistry.get_engine_cls("language_model", "fsdp2") is FSDPEngineWithLMHead,
            "rollout": get_rollout_class("hf", "async").__qualname__,
            "replica": get_rollout_replica_class("hf").__qualname__,
            "backend": torch.distributed.get_backend(),
            "world": torch.distributed.get_world_size(),
        }))
        """,
        VERL_PLATFORM="cpu",
        WG_BACKEND="ray",
        RANK="0",
        WORLD_SIZE="1",
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(_free_port()),
    )
    assert found == {
        "device": ["cpu", "cpu", "gloo", "GPU"],
        "engine": True,
        "rollout": "HFServerAdapter",
        "replica": "HFReplica",
        "backend": "gloo",
        "world": 1,
    }


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# The verl internals the plugin works around. Each test fails when verl changes the line it is about; then the
# plugin's workaround (kimina_train/verl_cpu/registration.py) must be revisited.


def test_verl_still_reads_rollout_classes_from_its_private_registry() -> None:
    from verl.workers.rollout import base

    assert isinstance(base._ROLLOUT_REGISTRY, dict) and ("vllm", "async") in base._ROLLOUT_REGISTRY
    source = inspect.getsource(base.get_rollout_class)
    assert "_ROLLOUT_REGISTRY[(rollout_name, mode)]" in source
    assert not hasattr(base, "register_rollout_class"), "verl now has a public way: use it instead of the dict"


def test_verl_still_builds_a_device_qualified_backend_and_keeps_an_existing_group() -> None:
    from verl.utils import distributed

    source = inspect.getsource(distributed.initialize_global_process_group_ray)
    assert 'f"cpu:gloo,{get_device_name()}:{get_nccl_backend()}"' in source  # "cpu:gloo,cpu:gloo" on CPU
    assert "if not torch.distributed.is_initialized():" in source  # why creating ours first is enough


def test_verl_still_counts_only_gpu_and_npu_resources() -> None:
    from verl.single_controller.ray.base import ResourcePoolManager

    source = inspect.getsource(ResourcePoolManager._check_resource_available)
    assert 'node_info.get("GPU", 0) if "GPU" in node_info else node_info.get("NPU", 0)' in source


def test_verl_still_registers_fsdp_engines_for_cuda_and_npu_only() -> None:
    from verl.workers.engine.fsdp import transformer_impl

    source = inspect.getsource(transformer_impl)
    assert source.count('backend=["fsdp", "fsdp2"], device=["cuda", "npu"]') == 2


def test_after_import_runs_a_hook_once_the_module_has_executed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kimina_train.verl_cpu.registration import after_import

    (tmp_path / "kimina_probe_module.py").write_text("VALUE = 41\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen: list[int] = []
    after_import({"kimina_probe_module": lambda module: seen.append(module.VALUE + 1)})
    assert seen == []
    import kimina_probe_module  # noqa: F401

    assert seen == [42]
    after_import({"kimina_probe_module": lambda module: seen.append(module.VALUE)})  # already imported: at once
    assert seen == [42, 41]
    sys.modules.pop("kimina_probe_module")


def test_init_gloo_process_group_leaves_other_processes_alone() -> None:
    from kimina_train.verl_cpu.registration import init_gloo_process_group

    assert not init_gloo_process_group({"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "x"})  # not a worker group
    assert not init_gloo_process_group({"WG_BACKEND": "ray"})  # no rendezvous to join


def test_the_device_module_answers_what_verl_calls_on_a_gpu() -> None:
    import torch
    from kimina_train.verl_cpu.platform import DEVICE_MODULE, PlatformCPU

    free, total = DEVICE_MODULE.mem_get_info()
    assert 0 < free <= total
    assert DEVICE_MODULE.memory_allocated() == 0 and DEVICE_MODULE.empty_cache() is None
    assert DEVICE_MODULE.synchronize is torch.cpu.synchronize  # what torch.cpu has, it answers
    state = DEVICE_MODULE.get_rng_state()
    first = torch.rand(3)
    DEVICE_MODULE.set_rng_state(state)
    assert torch.equal(first, torch.rand(3))
    platform = PlatformCPU()
    assert torch.zeros(1).to(platform.current_device()).device.type == "cpu"
    assert not platform.is_platform_available(use_smi_check=True)  # never picked by auto-detection
