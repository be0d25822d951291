"""Problem variants written by Gemini: prompt and response schema, answer cache, rate-limited retried calls, the step."""

from kimina_data.variants.cache import AnswerCache, CachedAnswer, cache_key
from kimina_data.variants.gemini import (
    PRICES_USD_PER_MTOK,
    GeminiCaller,
    GeminiCallFailed,
    GeminiError,
    GeminiSettings,
    GenAIClient,
    MissingApiKeyError,
    RateLimiter,
    make_gemini_client,
)
from kimina_data.variants.prompt import RESPONSE_SCHEMA, Candidate, MalformedOutput, build_prompt, parse_variants
from kimina_data.variants.step import ProgressHook, VariantResult, VariantStats, generate_variants

__all__ = [
    "PRICES_USD_PER_MTOK",
    "RESPONSE_SCHEMA",
    "AnswerCache",
    "CachedAnswer",
    "Candidate",
    "GenAIClient",
    "GeminiCallFailed",
    "GeminiCaller",
    "GeminiError",
    "GeminiSettings",
    "MalformedOutput",
    "MissingApiKeyError",
    "ProgressHook",
    "RateLimiter",
    "VariantResult",
    "VariantStats",
    "build_prompt",
    "cache_key",
    "generate_variants",
    "make_gemini_client",
    "parse_variants",
]
