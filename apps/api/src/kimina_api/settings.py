"""Server settings, read from `KIMINA_API_*` environment variables (and a `.env` file) or given by the CLI flags."""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import replace
from typing import Any, Literal

from kimina_format.prompts import TemplateName
from kimina_verify import Retries, VerifierOptions
from kimina_verify.attempts import CLIENT_RETRIES, RetryPolicy
from kimina_verify.config import dump_config, merge_config, parse_config
from kimina_verify.options import nest_flat
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = [
    "API_RETRY_DEFAULTS",
    "API_VERIFIER_DEFAULTS",
    "MINIF2F_HEADER",
    "EngineKind",
    "Settings",
]

EngineKind = Literal["transformers", "openai", "vllm"]

# The header every miniF2F statement is checked under; prepended when a request's statement has no imports.
MINIF2F_HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\n\nopen BigOperators Real Nat Topology Rat\n\n"
)

# The API's own defaults for the verifier; everything else is the client's. The client does not retry: the prover's
# `retry` rounds are the attempt protocol's one retry layer (kimina_verify.attempts), so the layers do not multiply.
API_VERIFIER_DEFAULTS = VerifierOptions(retries=Retries(count=CLIENT_RETRIES))

# Two rounds of re-verification after an outage, from 1 s, doubling, keep a request's wait under `verify_timeout_s`.
API_RETRY_DEFAULTS = RetryPolicy(rounds=2, first_delay_s=1.0)

# The flat settings of kimina-api 0.x and where they live now (accepted with a DeprecationWarning).
_RENAMED = {
    "verifier_url": "verifier.endpoint.url",
    "verifier_api_key": "verifier.endpoint.api_key",
    "lean_timeout_s": "verifier.timeouts.lean_s",
    "verifier_retries": "retry.rounds",
    "verifier_options": "verifier.*",
}
_RENAMED_ENV = {old: f"KIMINA_API_{old.upper()}" for old in _RENAMED}


def _unset_if_empty(value: str | None) -> str | None:
    return None if value is None or not value.strip() else value


class Settings(BaseSettings):
    """Everything the server needs to know: the engine, the verifier, auth and limits.

    Each field reads from `KIMINA_API_<FIELD>` (e.g. `KIMINA_API_MODEL=/models/kimina-1.7b`); dict fields take JSON.
    """

    model_config = SettingsConfigDict(
        env_prefix="KIMINA_API_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
        frozen=True,
        allow_inf_nan=False,
        populate_by_name=True,
    )

    # Serving (used by `kimina-api`; the app itself does not bind).
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)

    # Engine.
    engine: EngineKind = "transformers"
    model: str | None = Field(
        default=None,
        description="Model path or hub name (transformers, vllm), or the served model name (openai).",
    )
    engine_url: str | None = Field(default=None, description="Base URL of an OpenAI-compatible server (engine=openai).")
    engine_api_key: SecretStr | None = None
    engine_options: dict[str, Any] = Field(
        default_factory=dict, description='Extra keyword arguments for the engine, e.g. {"dtype": "bfloat16"}.'
    )
    engine_workers: int | None = Field(
        default=None,
        ge=1,
        description="Generation calls run at once; default 1 for in-process engines, max_concurrency for openai.",
    )
    prompt_template: TemplateName = "rl"
    default_header: str = MINIF2F_HEADER

    # Verification: one kimina_verify.VerifierOptions, passed whole to the Verifier. Nested variables use `__`
    # (KIMINA_API_VERIFIER__ENDPOINT__URL, KIMINA_API_VERIFIER__TIMEOUTS__LEAN_S, KIMINA_API_VERIFIER__CACHE) or
    # JSON (KIMINA_API_VERIFIER='{"endpoint": {"url": ...}}'). Like kimina-client and every kimina command, an unset
    # URL and key fall back to LEAN_SERVER_API_URL / LEAN_SERVER_API_KEY. Without a URL only verify=false is served.
    verifier: VerifierOptions = Field(
        default_factory=lambda: API_VERIFIER_DEFAULTS,
        validate_default=True,  # so that the LEAN_SERVER_API_* fallback applies to the default too
        description="The verification client's options (kimina_verify.VerifierOptions).",
    )
    retry: RetryPolicy = Field(
        default=API_RETRY_DEFAULTS,
        description="Re-verification of `infra` verdicts (kimina_verify.attempts.RetryPolicy; the one retry layer):"
        " KIMINA_API_RETRY__ROUNDS, KIMINA_API_RETRY__FIRST_DELAY_S, KIMINA_API_RETRY__MAX_DELAY_S.",
    )
    verify_timeout_s: float = Field(
        default=300.0, gt=0, description="Longest wait for one verdict, retries included; then `infra`."
    )

    # Auth: when set, /v1/* needs `Authorization: Bearer <key>` or `X-API-Key: <key>`.
    api_key: SecretStr | None = None

    # Limits.
    max_concurrency: int = Field(default=4, ge=1, description="Requests worked on at once.")
    max_queue: int = Field(default=32, ge=0, description="Requests waiting for a slot; beyond this: 429.")
    request_timeout_s: float = Field(default=600.0, gt=0, description="Queue wait plus work, per request.")
    max_body_bytes: int = Field(default=256_000, ge=1024)
    read_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="Seconds a client has for its request headers; the longest it may pause in its body (then 408)"
        " or in reading its answer.",
    )
    max_statement_chars: int = Field(default=20_000, ge=100)
    max_informal_chars: int = Field(default=20_000, ge=0)
    max_n: int = Field(default=16, ge=1)
    max_tokens_limit: int = Field(default=32_768, ge=16)
    default_max_tokens: int = Field(default=8192, ge=16)

    # Sampling defaults (the Kimina-Prover-Distill model card's).
    default_temperature: float = Field(default=0.6, ge=0)
    default_top_p: float = Field(default=0.95, gt=0, le=1)

    playground: bool = Field(default=True, description="Serve the playground page at /.")

    @field_validator("api_key", "engine_api_key", "model", "engine_url", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        # `KIMINA_API_API_KEY=` (as compose writes an unset variable) means no key, not the empty key.
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="before")
    @classmethod
    def _renamed_verifier_settings(cls, data: Any) -> Any:
        """Map the 0.x flat verifier settings (`verifier_url`, `lean_timeout_s`, ...) onto `verifier`, deprecated."""
        if not isinstance(data, dict):
            return data
        found = {old: data.pop(old) for old in list(data) if old in _RENAMED}
        found |= {old: os.environ[env] for old, env in _RENAMED_ENV.items() if env in os.environ and old not in found}
        if not found:
            return data
        warnings.warn(
            f"{', '.join(sorted(found))}: renamed; use {', '.join(_RENAMED[k] for k in sorted(found))}",
            DeprecationWarning,
            stacklevel=2,
        )
        nested = data.get("verifier")
        merged: dict[str, Any] = dict(nested) if isinstance(nested, dict) else {}
        for old, value in found.items():
            if old == "verifier_retries":
                retry = data.get("retry")
                retry = dict(retry) if isinstance(retry, dict) else {}
                retry.setdefault("rounds", int(value))
                data = {**data, "retry": retry}
                continue
            if old == "verifier_options":
                merged = merge_config(merged, nest_flat(json.loads(value) if isinstance(value, str) else value))
                continue
            group, key = _RENAMED[old].split(".")[1:]
            plain = value.get_secret_value() if isinstance(value, SecretStr) else value
            merged.setdefault(group, {}).setdefault(key, plain)
        if not merged and "verifier" in data:  # only `verifier_retries`: the verifier is as given
            return data
        return {**data, "verifier": merged}

    @field_validator("verifier", mode="before")
    @classmethod
    def _read_verifier(cls, value: object) -> object:
        # kimina-verify's loader: unknown keys rejected with a suggestion, text read as env variables give it; keys
        # not given keep the API's defaults (not only the client's).
        if isinstance(value, str):
            value = json.loads(value)
        if isinstance(value, VerifierOptions):
            value = dump_config(value)
        if not isinstance(value, dict):
            return value
        options = parse_config(VerifierOptions, value, where="verifier", strings=True, defaults=API_VERIFIER_DEFAULTS)
        if options.retries.count != CLIENT_RETRIES:
            raise ValueError(
                f"verifier.retries.count must be {CLIENT_RETRIES}: the prover's `retry` rounds are the one retry layer "
                "(kimina_verify.attempts); set retry.rounds (KIMINA_API_RETRY__ROUNDS) instead"
            )
        endpoint = options.endpoint
        url = _unset_if_empty(endpoint.url) or _unset_if_empty(os.environ.get("LEAN_SERVER_API_URL"))
        key = _unset_if_empty(endpoint.api_key) or _unset_if_empty(os.environ.get("LEAN_SERVER_API_KEY"))
        return replace(options, endpoint=replace(endpoint, url=url, api_key=key))

    def resolved_engine_workers(self) -> int:
        """How many generation calls may run at once (in-process engines are not thread-safe: one)."""
        if self.engine_workers is not None:
            return self.engine_workers
        return self.max_concurrency if self.engine == "openai" else 1
