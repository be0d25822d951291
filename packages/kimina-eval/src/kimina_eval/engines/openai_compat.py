"""An engine for any OpenAI-compatible chat server (``vllm serve``, SGLang, TGI...), over plain HTTP."""

from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from kimina_eval.engines.base import EngineError, Messages, SamplingParams

__all__ = ["OpenAIEngine"]

logger = logging.getLogger(__name__)

_RETRYABLE_STATUS = {408, 429, 500, 502, 503, 504}


def _api_base(url: str) -> str:
    """Return the server's ``.../v1`` base, whether or not the user wrote the ``/v1``."""
    url = url.rstrip("/")
    return url if url.endswith("/v1") else f"{url}/v1"


def _assistant_text(message: dict[str, Any]) -> str:
    """Rebuild the text the model wrote, ``<think>`` block included.

    A server started with a reasoning parser moves the thinking into ``reasoning_content`` (older vLLM) or
    ``reasoning`` (newer); it is put back so format checks see the whole completion.
    """
    content = message.get("content") or ""
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if reasoning and "<think>" not in content:
        return f"<think>\n{reasoning.strip()}\n</think>\n{content.lstrip()}"
    return str(content)


class OpenAIEngine:
    """Samples from an OpenAI-compatible ``/v1/chat/completions`` endpoint, several conversations at a time.

    Args:
        model: The server's base URL, e.g. ``http://localhost:8000`` (``/v1`` is added when missing).
        served_model: The model name to request; by default the first one ``/v1/models`` lists.
        api_key: Bearer token; defaults to ``$OPENAI_API_KEY`` when set.
        concurrency: Requests in flight at once (each asks for all ``n`` completions of one conversation).
        timeout_s: Per-request timeout; long proofs take minutes.
        retries: Extra attempts after a connection error, a timeout, 429 or 5xx, with exponential backoff.
        extra_body: Additional request fields for the server, e.g. ``{"top_k": 20}`` for vLLM.
    """

    def __init__(
        self,
        model: str,
        *,
        served_model: str | None = None,
        api_key: str | None = None,
        concurrency: int = 16,
        timeout_s: float = 3600.0,
        retries: int = 3,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        api_key = api_key or os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.base_url = _api_base(model)
        self.concurrency = max(1, concurrency)
        self.retries = retries
        self.extra_body = dict(extra_body or {})
        self._client = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout_s)
        self.served_model = served_model or self._first_model()

    def _first_model(self) -> str:
        data = self._request("GET", "/models")
        models = data.get("data") or []
        if not models:
            raise EngineError(f"{self.base_url}/models lists no model; pass served_model=...")
        return str(models[0]["id"])

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        delay = 1.0
        for attempt in range(self.retries + 1):
            try:
                response = self._client.request(method, path, json=body)
            except httpx.TransportError as error:
                problem = f"{type(error).__name__}: {error}"
            else:
                if response.status_code < 400:
                    payload: dict[str, Any] = response.json()
                    return payload
                problem = f"HTTP {response.status_code}: {response.text[:500]}"
                if response.status_code not in _RETRYABLE_STATUS:
                    raise EngineError(f"{method} {self.base_url}{path} failed: {problem}")
            if attempt < self.retries:
                logger.warning("%s %s failed (%s); retrying in %.0f s", method, path, problem, delay)
                time.sleep(delay)
                delay *= 2
        raise EngineError(f"{method} {self.base_url}{path} failed after {self.retries + 1} attempts: {problem}")

    def _complete(self, messages: Messages, n: int, sampling: SamplingParams) -> list[str]:
        body: dict[str, Any] = {
            "model": self.served_model,
            "messages": messages,
            "n": n,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_tokens,
            **self.extra_body,
        }
        if sampling.seed is not None:
            body["seed"] = sampling.seed
        choices = sorted(self._request("POST", "/chat/completions", body).get("choices") or [], key=_choice_index)
        if len(choices) != n:
            raise EngineError(f"asked {self.base_url} for {n} completions, got {len(choices)}")
        return [_assistant_text(choice.get("message") or {}) for choice in choices]

    def generate(self, prompts: list[Messages], n: int, sampling: SamplingParams) -> list[list[str]]:
        """Sample ``n`` completions per conversation (see `Engine.generate`)."""
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(lambda messages: self._complete(messages, n, sampling), prompts))

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()


def _choice_index(choice: dict[str, Any]) -> int:
    return int(choice.get("index", 0))
