"""verl's two halves of the `hf` rollout: the replica the trainer launches, and the adapter inside each actor process.

`HFReplica` (a `RolloutReplica`) starts one `HFRolloutServer` actor per replica, as `vLLMReplica` starts a vLLM
server. `HFServerAdapter` (a `BaseRollout`) lives in the FSDP actor's process and hands the server the actor's
weights after every step (verl's "naive" weight sync: the same calls it makes on a colocated vLLM).
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Iterable
from typing import Any

import ray  # imported by verl's processes only, through its registries
from verl.workers.rollout.base import BaseRollout  # noqa: TID253
from verl.workers.rollout.replica import RolloutReplica  # noqa: TID253

from kimina_train.verl_cpu.names import ROLLOUT_NAME

__all__ = ["HFReplica", "HFServerAdapter"]

logger = logging.getLogger(__name__)


def _server_name(replica_rank: int) -> str:
    """The Ray actor name of a replica's server, which the adapter looks up."""
    return f"{ROLLOUT_NAME}_server_{replica_rank}"


class HFReplica(RolloutReplica):  # type: ignore[misc]  # verl is untyped (mypy skips it)
    """One rollout replica: a single `HFRolloutServer` (transformers does not shard a model over processes)."""

    async def launch_servers(self) -> None:
        """Start the server actor and wait until its model is loaded."""
        from kimina_train.verl_cpu.server import HFRolloutServer

        if self.world_size != 1:
            raise ValueError(
                f"the hf rollout runs one process per replica; got tensor/data/pipeline parallel sizes giving "
                f"{self.world_size}: set actor_rollout_ref.rollout.tensor_model_parallel_size=1"
            )
        model = self.model_config
        override = dict(model.get("override_config") or {})
        server = (
            ray.remote(HFRolloutServer)
            .options(name=_server_name(self.replica_rank), num_cpus=1, max_concurrency=self.max_concurrency)
            .remote(
                config=self.config,
                model_path=str(model.path),
                tokenizer_path=model.get("tokenizer_path"),
                attn_implementation=str(override.get("attn_implementation", "sdpa")),
                replica_rank=self.replica_rank,
            )
        )
        await server.ready.remote()
        self.servers = [server]
        self._server_handle = server
        self._server_address = f"{ROLLOUT_NAME}-replica-{self.replica_rank}"


async def _items(weights: Iterable[Any] | AsyncIterator[Any]) -> AsyncIterator[Any]:
    if hasattr(weights, "__aiter__"):
        async for item in weights:
            yield item
    else:
        for item in weights:
            yield item


class HFServerAdapter(BaseRollout):  # type: ignore[misc]
    """The rollout as the FSDP actor process sees it: weights go to the replica's server through Ray."""

    def __init__(self, config: Any, model_config: Any, device_mesh: Any, replica_rank: int = -1) -> None:
        super().__init__(config, model_config, device_mesh)
        per_replica = (
            self.config.tensor_model_parallel_size
            * self.config.data_parallel_size
            * self.config.pipeline_model_parallel_size
        )
        rank = int(os.environ.get("RANK", "0"))
        self.replica_rank = rank // per_replica if replica_rank == -1 else replica_rank
        self.rollout_rank = rank % per_replica
        self._server: Any = None

    def _handle(self) -> Any:
        # The server is launched after this adapter (verl builds the actor process first), so look it up late.
        if self._server is None:
            self._server = ray.get_actor(_server_name(self.replica_rank))
        return self._server

    async def resume(self, tags: list[str]) -> None:
        """The server keeps its weights and has no cache to restore."""

    async def release(self) -> None:
        """Nothing to release on a CPU."""

    async def update_weights(
        self,
        weights: Iterable[Any] | AsyncIterator[Any],
        global_steps: int | None = None,
        wire_format: str = "named_tensors",
        **kwargs: Any,
    ) -> None:
        """Send the actor's full weights (`(name, tensor)` pairs, DTensor shards gathered) to the server."""
        if wire_format != "named_tensors":
            raise ValueError(f"the hf rollout takes full weights (named_tensors), not {wire_format!r}")
        state = {}
        async for name, tensor in _items(weights):
            # Every rank takes part in gathering a sharded tensor; the replica's first rank sends it.
            full = tensor.full_tensor() if hasattr(tensor, "full_tensor") else tensor
            if self.rollout_rank == 0:
                state[name] = full.detach().to("cpu", copy=True)
        if self.rollout_rank == 0:
            await self._handle().load_weights.remote(state, global_steps)
            logger.info("hf rollout: %d tensors loaded into replica %d", len(state), self.replica_rank)
