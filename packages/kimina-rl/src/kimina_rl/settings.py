"""Typed settings of the reward and the fix turn, read from the `kimina_rl` section of the trainer config."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kimina_verify.attempts import CLIENT_RETRIES, FEEDBACK_MAX_CHARS, FEEDBACK_MAX_ERRORS, RetryPolicy
from kimina_verify.config import ConfigError, parse_config, suggest
from kimina_verify.options import Limits, Retries, VerifierOptions

__all__ = [
    "RL_VERIFIER_DEFAULTS",
    "FixSettings",
    "ScorerSettings",
    "Settings",
]

# kimina-rl's own defaults for the client; every other option keeps kimina-verify's default. No client retries (the
# attempt protocol's `CLIENT_RETRIES`): the scorer owns the retry budget (`ScorerSettings.infra_retry_s`), so the two
# layers do not multiply; 16 requests in flight per worker process.
RL_VERIFIER_DEFAULTS = VerifierOptions(retries=Retries(count=CLIENT_RETRIES), limits=Limits(max_concurrency=16))

# The waits between re-verifications of an `infra` verdict: 2 s, doubling, at most 30 s (kimina-rl 0.3's backoff).
_FIRST_DELAY_S = 2.0
_MAX_DELAY_S = 30.0

# The flat keys of `kimina_rl.verifier` before 0.5, and where they live now (for the error message).
_MOVED = {
    "url": "kimina_rl.verifier.endpoint.url",
    "api_key": "kimina_rl.verifier.endpoint.api_key",
    "timeout_s": "kimina_rl.verifier.timeouts.lean_s",
    "request_size": "kimina_rl.verifier.limits.batch_size",
    "max_concurrent_requests": "kimina_rl.verifier.limits.max_concurrency",
    "infotree": "kimina_rl.verifier.checks.infotree",
    "batch_window_ms": "kimina_rl.scorer.batch_window_ms",
    "max_batch_size": "kimina_rl.scorer.max_batch_size",
    "infra_retry_s": "kimina_rl.scorer.infra_retry_s",
}


@dataclass(frozen=True)
class ScorerSettings:
    """How one worker process gathers reward calls into verification calls, and how long it rides out an outage.

    Attributes:
        batch_window_ms: How long concurrent reward calls are gathered into one verification call.
        max_batch_size: Most proofs gathered into one verification call.
        infra_retry_s: How long an unreachable or failing server is retried before the reward raises.
    """

    batch_window_ms: float = 5.0
    max_batch_size: int = 256
    infra_retry_s: float = 600.0

    def __post_init__(self) -> None:
        _require_positive(self, "max_batch_size")
        _require_non_negative(self, "batch_window_ms", "infra_retry_s")

    def retry_policy(self, *, scale: float = 1.0) -> RetryPolicy:
        """The attempt protocol's `RetryPolicy` for an `infra` verdict: as many rounds as fit in `infra_retry_s`.

        The waits are 2 s, doubling, at most 30 s, each times `scale` (the scorer draws one per sample, so that the
        samples waiting out an outage do not all come back at once); their sum never exceeds `infra_retry_s`. The
        rounds bound the waits only: the scorer also stops when the clock says the budget is spent (slow failing
        calls count too).

        Example:
            >>> ScorerSettings(infra_retry_s=600).retry_policy()
            RetryPolicy(rounds=23, first_delay_s=2.0, max_delay_s=30.0)
            >>> ScorerSettings(infra_retry_s=1).retry_policy().rounds
            0
        """
        if not scale > 0:
            raise ValueError(f"scale must be positive, got {scale!r}")
        first, most = _FIRST_DELAY_S * scale, _MAX_DELAY_S * scale
        rounds, waited, delay = 0, 0.0, first
        while delay < most and waited + delay <= self.infra_retry_s:
            rounds, waited, delay = rounds + 1, waited + delay, delay * 2
        # Once the waits reach their ceiling, the rest of the budget is whole ceilings (no loop over a long budget).
        if delay >= most and waited + most <= self.infra_retry_s:
            rounds += int((self.infra_retry_s - waited) // most)
        return RetryPolicy(rounds=rounds, first_delay_s=first, max_delay_s=most)


@dataclass(frozen=True)
class FixSettings:
    """The error-correction turn of the `kimina_fix` agent loop.

    Attributes:
        max_feedback_chars: Character budget for the rendered Lean feedback.
        max_feedback_tokens: Token budget for the whole feedback turn (chat markers included).
        max_errors: Most Lean errors shown to the model.
        min_revision_tokens: The fix turn runs only if at least this many response tokens remain for the revision.
        reward_scale: Score of a proof found in the fix turn, relative to one found at the first try.
        train_first_turn: Whether the failed first attempt stays in the loss when a fix turn follows it.
    """

    max_feedback_chars: int = FEEDBACK_MAX_CHARS
    max_feedback_tokens: int = 1024
    max_errors: int = FEEDBACK_MAX_ERRORS
    min_revision_tokens: int = 1024
    reward_scale: float = 1.0
    train_first_turn: bool = True

    def __post_init__(self) -> None:
        _require_positive(self, "max_feedback_chars", "max_feedback_tokens", "max_errors", "min_revision_tokens")
        _require_non_negative(self, "reward_scale")


@dataclass(frozen=True)
class Settings:
    """Everything kimina-rl reads from the `kimina_rl` config section (also passed as the reward's kwargs).

    Attributes:
        verifier: The `kimina_verify.Verifier`'s options, passed whole (kimina-rl's defaults: `RL_VERIFIER_DEFAULTS`).
        scorer: Micro-batching of reward calls and the outage budget.
        fix: Error-correction turn settings.
        format: Overrides of `kimina_format.FormatConfig` fields.
        history_path: SQLite file that records per-problem outcomes of training rollouts; None records nothing.
            `{host}` is replaced by the host name, so each node of a multi-node run writes its own local file.
    """

    verifier: VerifierOptions = field(default_factory=lambda: RL_VERIFIER_DEFAULTS)
    scorer: ScorerSettings = field(default_factory=ScorerSettings)
    fix: FixSettings = field(default_factory=FixSettings)
    format: Mapping[str, Any] = field(default_factory=dict)
    history_path: str | None = None

    def __post_init__(self) -> None:
        if self.verifier.retries.count != CLIENT_RETRIES:
            raise ConfigError(
                "kimina_rl.verifier.retries.count must be 0: the scorer re-verifies infrastructure failures itself "
                "(kimina_verify.attempts.verify_retrying, for kimina_rl.scorer.infra_retry_s), and two layers of "
                "retries would multiply"
            )

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | None) -> Settings:
        """Build settings from a (possibly partial) mapping laid out like the `kimina_rl` config section.

        Args:
            mapping: `{"verifier": {...}, "scorer": {...}, "fix": {...}, "format": {...}, "history": {"path": ...}}`;
                an omegaconf DictConfig works too. Absent keys keep their defaults; None means all defaults.

        Raises:
            ValueError: An unknown key (with the closest known one, or where a key of 0.4 moved), a value of the
                wrong type or out of range, named in the message.
        """
        data = _plain(mapping or {})
        _reject_unknown(data, {"verifier", "scorer", "fix", "format", "history"}, "kimina_rl")
        history = data.get("history") or {}
        _reject_unknown(history, {"path"}, "kimina_rl.history")
        path = history.get("path")
        verifier = data.get("verifier") or {}
        moved = [key for key in verifier if key in _MOVED]
        if moved:
            where = ", ".join(f"kimina_rl.verifier.{key} is now {_MOVED[key]}" for key in moved)
            raise ValueError(f"{where} (kimina-rl 0.4 groups the verifier options)")
        options = parse_config(VerifierOptions, verifier, where="kimina_rl.verifier", defaults=RL_VERIFIER_DEFAULTS)
        return cls(
            verifier=options,
            scorer=parse_config(ScorerSettings, data.get("scorer"), where="kimina_rl.scorer"),
            fix=parse_config(FixSettings, data.get("fix"), where="kimina_rl.fix"),
            format=dict(data.get("format") or {}),
            history_path=str(path) if path is not None else None,
        )

    def format_config(self) -> Any:
        """The `kimina_format.FormatConfig` these settings select (its defaults plus the `format` overrides)."""
        from kimina_format import FormatConfig

        return parse_config(FormatConfig, self.format, where="kimina_rl.format")


def _plain(value: Any) -> Any:
    """Turn omegaconf containers into plain dicts and lists (resolving interpolations)."""
    from omegaconf import OmegaConf

    if OmegaConf.is_config(value):
        return OmegaConf.to_container(value, resolve=True)
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    return value


def _reject_unknown(values: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(f"{where}.{unknown[0]}: unknown key{suggest(unknown[0], known)}")


def _require_positive(obj: object, *names: str) -> None:
    for name in names:
        if not getattr(obj, name) > 0:
            raise ValueError(f"{name} must be positive, got {getattr(obj, name)!r}")


def _require_non_negative(obj: object, *names: str) -> None:
    for name in names:
        if not getattr(obj, name) >= 0:
            raise ValueError(f"{name} must not be negative, got {getattr(obj, name)!r}")
