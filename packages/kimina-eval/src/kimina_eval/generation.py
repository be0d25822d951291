"""Sampling for the runner and the lemma search alike: per-call seeds, one engine call at a time, checked output."""

from __future__ import annotations

import asyncio
import dataclasses
import time
import zlib
from collections.abc import Awaitable, Callable
from typing import Protocol

from kimina_eval.engines.base import EngineError, Messages, SamplingParams

__all__ = ["generate"]


class _Generates(Protocol):
    def generate(self, prompts: list[Messages], n: int, sampling: SamplingParams) -> list[list[str]]: ...


def _derived_sampling(sampling: SamplingParams, key: str) -> SamplingParams:
    """`sampling` with its seed mixed with `key` (what is being sampled), or unchanged without a seed.

    A fixed seed on every call would repeat the same draws for resumed or extra samples; the derived one is stable for
    the same key, so a rerun with the same seed samples the same completions.
    """
    if sampling.seed is None:
        return sampling
    return dataclasses.replace(sampling, seed=zlib.crc32(f"{sampling.seed}:{key}".encode()))


async def generate(
    engine: Callable[[], _Generates],
    prompts: list[Messages],
    n: int,
    sampling: SamplingParams,
    *,
    key: str,
    lock: asyncio.Lock,
    prepare: Callable[[], Awaitable[None]] | None = None,
) -> tuple[list[list[str]], float]:
    """`n` completions per prompt from the engine, under `lock`, with the seed derived from `key`.

    Args:
        engine: Returns the engine to use (called under the lock, after `prepare`).
        prompts: Chat prompts.
        n: Completions per prompt.
        sampling: Sampling settings (the seed is derived per call, see `_derived_sampling`).
        key: Names what is sampled (problem, sample, turn or round and step).
        lock: Serialises engine calls (one engine serves every concurrent batch or problem).
        prepare: Awaited under the lock before the call (the search reloads its engine there).

    Returns:
        The completions and the seconds the engine call took.

    Raises:
        EngineError: When the engine returns the wrong number of completions.
    """
    sampling = _derived_sampling(sampling, key)
    async with lock:
        if prepare is not None:
            await prepare()
        current = engine()
        start = time.perf_counter()
        outputs = await asyncio.to_thread(current.generate, prompts, n, sampling)
        elapsed = time.perf_counter() - start
    if len(outputs) != len(prompts) or any(len(o) != n for o in outputs):
        raise EngineError(f"the engine returned {[len(o) for o in outputs]} completions, expected {n} each")
    return outputs, elapsed
