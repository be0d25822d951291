"""GPU check: count, type and memory of this node's GPUs (and of the Ray cluster's) against the recipe."""

from __future__ import annotations

import logging
import shutil
import subprocess
from dataclasses import dataclass

from kimina_train.preflight.checklist import CheckResult, Status
from kimina_train.settings import HardwareSpec

__all__ = ["Gpu", "check_gpus", "cluster_gpu_count", "probe_gpus"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Gpu:
    """One GPU as `nvidia-smi` reports it.

    Attributes:
        name: Product name (`NVIDIA H100 80GB HBM3`).
        memory_gib: Total memory in GiB.
    """

    name: str
    memory_gib: float


def probe_gpus() -> list[Gpu]:
    """This node's NVIDIA GPUs from `nvidia-smi`; an empty list when there is none or no driver.

    `nvidia-smi` answers in a fraction of a second and needs no CUDA context, unlike `torch.cuda`.
    """
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    try:
        out = subprocess.run(
            [exe, "--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        logger.warning("nvidia-smi failed: %s", exc)
        return []
    gpus = []
    for line in out.strip().splitlines():
        name, _, memory_mib = line.rpartition(",")
        try:
            gpus.append(Gpu(name=name.strip(), memory_gib=float(memory_mib) / 1024))
        except ValueError:
            logger.warning("unreadable nvidia-smi line: %r", line)
    return gpus


def cluster_gpu_count(address: str) -> int:
    """GPUs in the whole Ray cluster at `address`, as Ray counts them."""
    import ray

    ray.init(address=address, logging_level="ERROR", log_to_driver=False)
    try:
        return int(ray.cluster_resources().get("GPU", 0))
    finally:
        ray.shutdown()


def check_gpus(
    gpus: list[Gpu],
    *,
    recipe: str,
    per_node: int,
    nnodes: int,
    hardware: HardwareSpec,
    cluster_gpus: int | None = None,
) -> CheckResult:
    """Compare this node's GPUs (and the cluster's, for several nodes) with what the recipe needs.

    Args:
        gpus: This node's GPUs.
        recipe: The recipe's name, for the message.
        per_node: GPUs the recipe uses per node (`trainer.n_gpus_per_node`).
        nnodes: Nodes the recipe uses (`trainer.nnodes`).
        hardware: The GPU type and memory the recipe was sized for.
        cluster_gpus: GPUs in the Ray cluster, when training on several nodes.
    """
    need = f"{per_node} GPU{'s' if per_node != 1 else ''} per node"
    if hardware.gpu_type or hardware.min_gpu_memory_gib:
        need += f" ({hardware.gpu_type or 'any type'}, >= {hardware.min_gpu_memory_gib:g} GiB each)"
    if not gpus:
        return CheckResult(
            "gpus",
            Status.FAIL,
            f"recipe {recipe} needs {need}, and this machine has none (nvidia-smi not found or lists no GPU)",
            "run it on a GPU node, or try the launch path with `--recipe smoke`, which also runs on CPU",
        )
    if len(gpus) < per_node:
        return CheckResult(
            "gpus",
            Status.FAIL,
            f"recipe {recipe} needs {need}, and this node has {len(gpus)}",
            f"set trainer.n_gpus_per_node={len(gpus)} (and scale data.train_batch_size down) or use a bigger node",
        )
    small = [g for g in gpus[:per_node] if g.memory_gib < hardware.min_gpu_memory_gib]
    if small:
        return CheckResult(
            "gpus",
            Status.FAIL,
            f"recipe {recipe} needs {need}; {small[0].name} has {small[0].memory_gib:.0f} GiB",
            "use GPUs with more memory, or lower actor_rollout_ref.rollout.gpu_memory_utilization and the lengths",
        )
    if nnodes > 1 and cluster_gpus is not None and cluster_gpus < per_node * nnodes:
        return CheckResult(
            "gpus",
            Status.FAIL,
            f"recipe {recipe} needs {per_node * nnodes} GPUs on {nnodes} nodes; the Ray cluster has {cluster_gpus}",
            "start `ray start --address=HEAD:6379` on every worker node, then launch again",
        )
    found = f"{len(gpus)} x {gpus[0].name} ({gpus[0].memory_gib:.0f} GiB)"
    if nnodes > 1:
        found += f" here; {cluster_gpus if cluster_gpus is not None else '?'} in the Ray cluster"
    if hardware.gpu_type and not all(hardware.gpu_type.lower() in g.name.lower() for g in gpus[:per_node]):
        return CheckResult(
            "gpus",
            Status.WARN,
            f"{found}; the recipe was sized for {hardware.gpu_type}",
            "step times and memory headroom will differ from the recipe's comments",
        )
    return CheckResult("gpus", Status.OK, found)
