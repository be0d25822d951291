"""The HTTP surface: request and response bodies of `/v1/prove`, `/health`, and the streamed events."""

from __future__ import annotations

from typing import Literal

from kimina_verify import LeanCode
from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "Attempt",
    "ComponentHealth",
    "ErrorBody",
    "FormatReport",
    "FormatViolation",
    "HealthResponse",
    "IntegrityViolation",
    "LeanMessage",
    "LeanReport",
    "ProveRequest",
    "ProveResponse",
    "RequestTimings",
    "SamplingRequest",
    "StreamError",
    "Timings",
    "VerdictKindName",
    "VerifierHealth",
]

VerdictKindName = Literal["valid", "sorry", "lean_error", "integrity", "timeout", "infra"]


# Hard ceilings: the server's own (lower) limits are checked against its settings in the endpoint.
_MAX_TEXT = 200_000


class SamplingRequest(BaseModel):
    """Sampling settings for one request; unset fields take the server's defaults."""

    # allow_inf_nan=False: `1e400` parses as infinity, and no setting here may be infinite.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1, description="Tokens per completion.")
    seed: int | None = None


class ProveRequest(BaseModel):
    """Prove one Lean 4 statement: sample `n` attempts, check their format, verify them, optionally fix once."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={
            "examples": [
                {
                    "formal_statement": (
                        "theorem mathd_algebra_171 (f : ℝ → ℝ) (h₀ : ∀ x, f x = 5 * x + 4) : f 1 = 9 := by"
                    ),
                    "informal_problem": "Consider the function $f(x)=5x+4$. What is $f(1)$? Show that it is 9.",
                    "n": 4,
                    "fix_turns": 1,
                }
            ]
        },
    )

    formal_statement: str = Field(
        min_length=1,
        max_length=_MAX_TEXT,
        description="A Lean 4 theorem, with or without its imports (the server's default header is added if none).",
    )
    informal_problem: str | None = Field(default=None, max_length=_MAX_TEXT)
    n: int = Field(default=1, ge=1, le=256, description="Attempts to sample.")
    sampling: SamplingRequest = Field(default_factory=SamplingRequest)
    verify: bool = Field(default=True, description="Check every attempt with Lean.")
    fix_turns: int = Field(default=0, ge=0, le=1, description="Error-fix turns after a failed attempt (0 or 1).")
    stream: bool = Field(default=False, description="Send server-sent events as attempts progress.")

    @field_validator("formal_statement")
    @classmethod
    def _has_theorem(cls, value: str) -> str:
        if "\x00" in value:
            raise ValueError("the statement contains a NUL character")
        # Found by the verifier's own reader (comments ignored); an `example` has no name to check, so it does not count.
        if not any(d.keyword in ("theorem", "lemma") and d.name for d in LeanCode(value).declarations):
            raise ValueError("the statement must contain a `theorem` or `lemma` declaration to prove")
        return value


class FormatViolation(BaseModel):
    """One broken format rule: a stable code and a message for people."""

    code: str
    message: str


class FormatReport(BaseModel):
    """The format verdict of one completion (kimina-format)."""

    ok: bool
    score: float
    violations: list[FormatViolation]


class LeanMessage(BaseModel):
    """One message from Lean, positioned in the attempt's own code (lines 1-based, columns 0-based)."""

    severity: str
    text: str
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    goals_before: str | None = Field(default=None, description="The goals before the failing tactic, when known.")


class IntegrityViolation(BaseModel):
    """A rule the code broke before Lean ran (a changed statement, `sorry`, a new axiom...)."""

    code: str
    message: str
    line: int | None = None


class LeanReport(BaseModel):
    """Lean's verdict on one attempt's code (kimina-verify); `infra` means it could not be checked, not disproved."""

    kind: VerdictKindName
    ok: bool
    messages: list[LeanMessage] = Field(default_factory=list)
    violations: list[IntegrityViolation] = Field(default_factory=list)
    detail: str | None = Field(default=None, description="One line: the first error, or why it could not be checked.")
    time_s: float | None = None
    cached: bool = False


class Timings(BaseModel):
    """Seconds spent on one attempt."""

    generate_s: float = Field(default=0.0, description="The engine call that produced it (shared by its batch).")
    verify_s: float = 0.0


class Attempt(BaseModel):
    """One sampled completion and what we learnt about it; `fix` is the error-fix turn that followed, if any."""

    index: int
    turn: int = Field(description="1 for a first attempt, 2 for its error-fix turn.")
    stage: Literal["generated", "verifying", "done"]
    completion: str
    thinking: str | None
    code: str | None
    format: FormatReport
    lean: LeanReport | None = Field(default=None, description="Null until verified, or when verify=false.")
    feedback: str | None = Field(default=None, description="The Lean feedback sent to the model for the fix turn.")
    fix: Attempt | None = None
    timings: Timings = Field(default_factory=Timings)


class RequestTimings(BaseModel):
    """Seconds spent on the whole request."""

    queue_s: float
    total_s: float


class ProveResponse(BaseModel):
    """Every attempt, and the first valid proof if any attempt (or its fix) was accepted by Lean."""

    id: str
    model: str
    proved: bool
    proof: str | None = Field(description="The first valid proof's code.")
    attempts: list[Attempt]
    unverified: int = Field(description="Attempts Lean could not check (infra errors): unknown, not disproved.")
    lean_env: str | None = Field(
        default=None, description="The verification server's Lean environment (null when nothing was verified)."
    )
    stand_in: bool = Field(
        default=False,
        description="True when the verdicts come from lean-repl-sim, a stand-in that runs no Lean: not real proofs.",
    )
    timings: RequestTimings


class ComponentHealth(BaseModel):
    """The state of one dependency."""

    ok: bool
    detail: str


class VerifierHealth(ComponentHealth):
    """The verification server's state, and which Lean gives its verdicts."""

    lean_env: str | None = Field(default=None, description="The server's Lean environment, as its /health names it.")
    stand_in: bool = Field(
        default=False, description="True when the verdicts come from lean-repl-sim, a stand-in that runs no Lean."
    )


class HealthResponse(BaseModel):
    """`GET /health`: ready when the engine is loaded and, if configured, the verifier answers."""

    status: Literal["ok", "degraded"]
    version: str
    engine: ComponentHealth
    verifier: VerifierHealth
    in_flight: int
    queued: int


class ErrorBody(BaseModel):
    """Every error response: a status and a reason for people."""

    detail: str


class StreamError(BaseModel):
    """The `error` event of a stream: the status the request would have had, and why."""

    status: int
    detail: str
