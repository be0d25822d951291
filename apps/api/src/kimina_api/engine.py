"""The sampling engine behind the API: built from settings with kimina-eval's `make_engine`, run off the event loop."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from kimina_eval.engines import Engine, Messages, SamplingParams, make_engine

from kimina_api.settings import Settings

__all__ = ["EngineRunner", "EngineUnavailable"]

logger = logging.getLogger(__name__)


class EngineUnavailable(Exception):
    """The engine could not produce completions (not loaded, crashed, or its server failed): HTTP 503."""


def _build_engine(settings: Settings) -> Engine:
    """Build the engine the settings name; slow for local models (the weights load here).

    Raises:
        ValueError: When a setting the engine needs is missing.
        ImportError: When the engine's extra is not installed (the message names it).
    """
    options: dict[str, Any] = dict(settings.engine_options)
    if settings.engine == "openai":
        if not settings.engine_url:
            raise ValueError("engine=openai needs engine_url (KIMINA_API_ENGINE_URL), e.g. http://vllm:8000/v1")
        if settings.model:
            options.setdefault("served_model", settings.model)
        if settings.engine_api_key is not None:
            options.setdefault("api_key", settings.engine_api_key.get_secret_value())
        return make_engine("openai", settings.engine_url, **options)
    if not settings.model:
        raise ValueError(f"engine={settings.engine} needs a model path or name (KIMINA_API_MODEL or --model)")
    return make_engine(settings.engine, settings.model, **options)


@dataclass
class EngineRunner:
    """Runs an engine's blocking `generate` on a few worker threads, so the server keeps answering meanwhile.

    In-process engines (transformers, vLLM) are not thread-safe, so they get one worker and calls queue here; an
    OpenAI-compatible server batches by itself and gets as many workers as requests may run at once. A call that is
    cancelled before its turn never starts; one already running finishes and its result is dropped.

    Attributes:
        engine: The engine, or None when it failed to load.
        name: What to report as the model (the model path or served name).
        load_error: Why the engine is missing, for /health and the 503 reason.
    """

    engine: Engine | None
    name: str
    workers: int = 1
    load_error: str | None = None

    def __post_init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="kimina-engine")

    @classmethod
    def load(cls, settings: Settings) -> EngineRunner:
        """Build the engine; a failure is recorded (and logged), not raised, so /health can report it.

        This blocks: it runs at startup, before any request, and on the main thread, which vLLM needs (it installs
        signal handlers).
        """
        name = settings.model or settings.engine_url or "(none)"
        try:
            engine = _build_engine(settings)
        except Exception as exc:  # any failure to load leaves the server up and saying why
            reason = f"{type(exc).__name__}: {exc}"
            logger.error("engine failed to load", extra={"engine": settings.engine, "reason": reason})
            return cls(engine=None, name=name, workers=1, load_error=reason)
        logger.info("engine loaded", extra={"engine": settings.engine, "model": name})
        return cls(engine=engine, name=name, workers=settings.resolved_engine_workers())

    @property
    def ready(self) -> bool:
        """Whether the engine loaded."""
        return self.engine is not None

    async def generate(self, prompts: list[Messages], n: int, sampling: SamplingParams) -> list[list[str]]:
        """Sample `n` completions per conversation.

        Raises:
            EngineUnavailable: When no engine is loaded, it raised, or it returned the wrong number of completions.
        """
        engine = self.engine
        if engine is None:
            raise EngineUnavailable(f"the engine is not loaded: {self.load_error}")
        loop = asyncio.get_running_loop()
        try:
            outputs = await loop.run_in_executor(self._executor, engine.generate, prompts, n, sampling)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            logger.exception("engine failed")
            raise EngineUnavailable(f"the engine failed: {type(exc).__name__}: {exc}") from exc
        if len(outputs) != len(prompts) or any(len(texts) != n for texts in outputs):
            raise EngineUnavailable(
                f"the engine returned {[len(t) for t in outputs]} completions for {len(prompts)}x{n}"
            )
        return outputs

    def close(self) -> None:
        """Stop the worker threads (a running call finishes first) and let the engine go."""
        self._executor.shutdown(wait=False, cancel_futures=True)
        close = getattr(self.engine, "close", None)
        if callable(close):
            close()
        self.engine = None
