"""Server settings, read from `KIMINA_API_*` environment variables (and a `.env` file) or given by the CLI flags."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

EngineKind = Literal["transformers", "openai", "vllm"]
PromptTemplate = Literal["rl", "distill"]

# The header every miniF2F statement is checked under; prepended when a request's statement has no imports.
MINIF2F_HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\n\nopen BigOperators Real Nat Topology Rat\n\n"
)


class Settings(BaseSettings):
    """Everything the server needs to know: the engine, the verifier, auth and limits.

    Each field reads from `KIMINA_API_<FIELD>` (e.g. `KIMINA_API_MODEL=/models/kimina-1.7b`); dict fields take JSON.
    """

    model_config = SettingsConfigDict(
        env_prefix="KIMINA_API_",
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
    prompt_template: PromptTemplate = "rl"
    default_header: str = MINIF2F_HEADER

    # Verification server (kimina-verify serve or any kimina-lean-server). Like kimina-client and every kimina
    # command, the API falls back to LEAN_SERVER_API_URL / LEAN_SERVER_API_KEY.
    verifier_url: str | None = Field(
        default=None, validation_alias=AliasChoices("KIMINA_API_VERIFIER_URL", "LEAN_SERVER_API_URL")
    )
    verifier_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("KIMINA_API_VERIFIER_API_KEY", "LEAN_SERVER_API_KEY")
    )
    verifier_options: dict[str, Any] = Field(
        default_factory=dict,
        description='Extra keyword arguments for kimina_verify.Verifier, e.g. {"cache": "/data/verdicts.sqlite"}.',
    )
    lean_timeout_s: float = Field(default=60.0, gt=0, description="Lean's time limit per proof.")
    verifier_retries: int = Field(default=2, ge=0, description="Retries after a verifier outage, with backoff.")
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

    @field_validator(
        "api_key", "engine_api_key", "verifier_api_key", "model", "engine_url", "verifier_url", mode="before"
    )
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        # `KIMINA_API_API_KEY=` (as compose writes an unset variable) means no key, not the empty key.
        return None if isinstance(value, str) and not value.strip() else value

    def resolved_engine_workers(self) -> int:
        """How many generation calls may run at once (in-process engines are not thread-safe: one)."""
        if self.engine_workers is not None:
            return self.engine_workers
        return self.max_concurrency if self.engine == "openai" else 1
