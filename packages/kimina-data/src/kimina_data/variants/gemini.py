"""Calls to Gemini through `google-genai`: client from the environment, rate limit, retries on 429/5xx, prices."""

from __future__ import annotations

import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from kimina_data.variants.cache import CachedAnswer
from kimina_data.variants.prompt import RESPONSE_SCHEMA

__all__ = [
    "GeminiCallFailed",
    "GeminiCaller",
    "GeminiError",
    "GeminiSettings",
    "GenAIClient",
    "MissingApiKeyError",
    "PRICES_USD_PER_MTOK",
    "RateLimiter",
    "make_gemini_client",
]

log = logging.getLogger(__name__)

PRICES_USD_PER_MTOK: dict[str, tuple[float, float]] = {
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.5-pro": (1.25, 10.00),
}
"""(input, output) list prices in USD per million tokens, text, paid tier, prompts under 200K tokens, as of 2026.
Thinking tokens bill as output. Set `GeminiSettings` prices for any other model or a different contract."""

_FATAL_CODES = frozenset({401, 403, 404})  # bad key, no access, unknown model: no later call can succeed either


class GeminiError(RuntimeError):
    """Gemini cannot be used for this run; the message says why and what to do."""


class MissingApiKeyError(GeminiError):
    """Neither `GEMINI_API_KEY` nor `GOOGLE_API_KEY` is set."""


class GeminiCallFailed(GeminiError):
    """One call failed for good: a status that retrying cannot fix, or every retry used up.

    Attributes:
        code: The HTTP status, or None for a network error.
        fatal: True when no other call can succeed either (bad key, no access, unknown model).
    """

    def __init__(self, message: str, *, code: int | None) -> None:
        super().__init__(message)
        self.code = code
        self.fatal = code in _FATAL_CODES


class _Models(Protocol):
    def generate_content(self, *, model: str, contents: Any, config: Any = None) -> Any: ...


class GenAIClient(Protocol):
    """The part of `google.genai.Client` this package uses; tests pass a fake with the same surface."""

    @property
    def models(self) -> _Models:
        """The object whose `generate_content` makes a call."""
        ...


@dataclass(frozen=True, slots=True)
class GeminiSettings:
    """How variants are requested from Gemini.

    Attributes:
        model: Gemini model name.
        temperature: Sampling temperature; high enough for varied problems.
        requests_per_minute: Upper bound on calls started per minute, across all threads.
        max_retries: Retries of one call on 429, 5xx and network errors before it counts as failed.
        backoff_s: First retry delay; doubles per retry, with jitter, up to `max_backoff_s`. A delay the server
            asks for (RetryInfo) is used instead.
        max_backoff_s: Longest delay between retries.
        input_usd_per_mtok: Input price; None takes it from `PRICES_USD_PER_MTOK`.
        output_usd_per_mtok: Output price (thinking included); None takes it from `PRICES_USD_PER_MTOK`.
    """

    model: str = "gemini-2.5-flash"
    temperature: float = 1.0
    requests_per_minute: float = 60.0
    max_retries: int = 5
    backoff_s: float = 2.0
    max_backoff_s: float = 60.0
    input_usd_per_mtok: float | None = None
    output_usd_per_mtok: float | None = None

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float | None:
        """Cost of the given tokens, or None when the model's prices are unknown."""
        listed = PRICES_USD_PER_MTOK.get(self.model)
        price_in = self.input_usd_per_mtok if self.input_usd_per_mtok is not None else listed and listed[0]
        price_out = self.output_usd_per_mtok if self.output_usd_per_mtok is not None else listed and listed[1]
        if price_in is None or price_out is None:
            return None
        return (input_tokens * price_in + output_tokens * price_out) / 1e6


def make_gemini_client(api_key: str | None = None) -> GenAIClient:
    """A real `google.genai.Client` for the key given, else `GEMINI_API_KEY`, else `GOOGLE_API_KEY`.

    Raises:
        MissingApiKeyError: No key anywhere.
    """
    key = api_key or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
    if not key:
        raise MissingApiKeyError(
            "Gemini variants need an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), or build without variants "
            "(the default: drop --variants, or set `variants: 0` in the config)"
        )
    from google import genai

    client: GenAIClient = genai.Client(api_key=key)
    return client


class RateLimiter:
    """Spaces call starts at least `60 / per_minute` seconds apart, shared by every thread that calls `wait`."""

    def __init__(
        self,
        per_minute: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if per_minute <= 0:
            raise ValueError(f"requests per minute must be positive, got {per_minute}")
        self._interval = 60.0 / per_minute
        self._clock, self._sleep = clock, sleep
        self._next = float("-inf")
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Block until this caller may start a request."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self._interval
        if start > now:
            self._sleep(start - now)


class GeminiCaller:
    """Asks Gemini one prompt at a time for JSON in `RESPONSE_SCHEMA`, retrying what can be retried.

    Thread-safe: several threads may call it at once; the rate limit and the retry count are shared.
    """

    def __init__(
        self,
        client: GenAIClient,
        settings: GeminiSettings = GeminiSettings(),
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client, self.settings = client, settings
        self._sleep = sleep
        self._limiter = RateLimiter(settings.requests_per_minute, clock=clock, sleep=sleep)
        self._lock = threading.Lock()
        self.retries = 0

    def __call__(self, prompt: str) -> CachedAnswer:
        """Ask one prompt; return the raw answer text and its token counts.

        Raises:
            GeminiCallFailed: A status that is not worth retrying, or retries used up.
        """
        config = {
            "response_mime_type": "application/json",
            "response_json_schema": RESPONSE_SCHEMA,
            "temperature": self.settings.temperature,
        }
        for attempt in range(self.settings.max_retries + 1):
            self._limiter.wait()
            try:
                response = self.client.models.generate_content(
                    model=self.settings.model, contents=prompt, config=config
                )
            except Exception as e:
                code = _status(e)
                if code is None and not isinstance(e, ConnectionError | TimeoutError):
                    raise  # not an API or network failure: a bug, which retrying would only hide
                retryable = code is None or code == 429 or code >= 500
                if not retryable or attempt == self.settings.max_retries:
                    tries = f" after {attempt + 1} attempts" if retryable else ""
                    raise GeminiCallFailed(f"Gemini call failed{tries}: {_describe(e)}", code=code) from e
                delay = _server_delay(e) or min(self.settings.max_backoff_s, self.settings.backoff_s * 2**attempt)
                delay *= 0.5 + random.random() / 2  # jitter, so parallel callers do not retry in lockstep
                log.warning("Gemini %s; retry %d in %.1f s", _describe(e), attempt + 1, delay)
                with self._lock:
                    self.retries += 1
                self._sleep(delay)
                continue
            return _answer(response)
        raise AssertionError("unreachable")  # the loop returns or raises


def _status(error: Exception) -> int | None:
    code = getattr(error, "code", None)
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _describe(error: Exception) -> str:
    code, status = _status(error), getattr(error, "status", None)
    message = getattr(error, "message", None) or str(error)
    return " ".join(str(part) for part in (code, status, message) if part)[:300]


def _server_delay(error: Exception) -> float | None:
    """The delay a 429 asks for in its google.rpc.RetryInfo detail (`"retryDelay": "31s"`), if any."""
    details = getattr(error, "details", None)
    inner = details.get("error", details) if isinstance(details, dict) else None
    items = inner.get("details") if isinstance(inner, dict) else None
    for item in items if isinstance(items, list) else []:
        delay = item.get("retryDelay") if isinstance(item, dict) else None
        if isinstance(delay, str) and re.fullmatch(r"\d+(\.\d+)?s", delay):
            return float(delay[:-1])
    return None


def _answer(response: Any) -> CachedAnswer:
    usage = getattr(response, "usage_metadata", None)
    prompt_tokens = getattr(usage, "prompt_token_count", None) or 0
    output_tokens = (getattr(usage, "candidates_token_count", None) or 0) + (
        getattr(usage, "thoughts_token_count", None) or 0
    )
    text = getattr(response, "text", None)
    return CachedAnswer(text if isinstance(text, str) else None, int(prompt_tokens), int(output_tokens))
