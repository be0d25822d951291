"""Typed settings of the reward and the fix turn, read from the `kimina_rl` section of the trainer config."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from kimina_verify.attempts import FEEDBACK_MAX_CHARS, FEEDBACK_MAX_ERRORS


@dataclass(frozen=True)
class VerifierSettings:
    """How the reward talks to the verification server (through one `kimina_verify.Verifier` per process).

    Attributes:
        url: Server base URL; None lets kimina-verify pick its default (`$LEAN_SERVER_API_URL`, then localhost).
        api_key: Bearer key; None lets kimina-verify read `$LEAN_SERVER_API_KEY`.
        timeout_s: Lean time limit per proof, in seconds.
        batch_window_ms: How long concurrent reward calls are gathered into one verification call.
        max_batch_size: Most proofs gathered into one verification call.
        request_size: Proofs per HTTP request to the server.
        max_concurrent_requests: HTTP requests in flight at once from one worker process.
        infra_retry_s: How long an unreachable or failing server is retried before the reward raises.
        cache: Path of a SQLite verdict cache shared across runs; None for no cache.
        infotree: Ask the server for an infotree (e.g. "original") so fix-turn feedback shows the goals.
    """

    url: str | None = None
    api_key: str | None = None
    timeout_s: float = 60.0
    batch_window_ms: float = 5.0
    max_batch_size: int = 256
    request_size: int = 8
    max_concurrent_requests: int = 16
    infra_retry_s: float = 600.0
    cache: str | None = None
    infotree: str | None = None

    def __post_init__(self) -> None:
        _require_positive(self, "timeout_s", "max_batch_size", "request_size", "max_concurrent_requests")
        _require_non_negative(self, "batch_window_ms", "infra_retry_s")


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
        verifier: Verification server client settings.
        fix: Error-correction turn settings.
        format: Overrides of `kimina_format.FormatConfig` fields.
        history_path: SQLite file that records per-problem outcomes of training rollouts; None records nothing.
            `{host}` is replaced by the host name, so each node of a multi-node run writes its own local file.
    """

    verifier: VerifierSettings = field(default_factory=VerifierSettings)
    fix: FixSettings = field(default_factory=FixSettings)
    format: Mapping[str, Any] = field(default_factory=dict)
    history_path: str | None = None

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | None) -> Settings:
        """Build settings from a (possibly partial) mapping laid out like the `kimina_rl` config section.

        Args:
            mapping: `{"verifier": {...}, "fix": {...}, "format": {...}, "history": {"path": ...}}`; an omegaconf
                DictConfig works too. Absent keys keep their defaults; None means all defaults.

        Raises:
            ValueError: An unknown key or an out-of-range value, named in the message.
        """
        data = _plain(mapping or {})
        _reject_unknown(data, {"verifier", "fix", "format", "history"}, "kimina_rl")
        history = data.get("history") or {}
        _reject_unknown(history, {"path"}, "kimina_rl.history")
        path = history.get("path")
        return cls(
            verifier=_build(VerifierSettings, data.get("verifier"), "kimina_rl.verifier"),
            fix=_build(FixSettings, data.get("fix"), "kimina_rl.fix"),
            format=dict(data.get("format") or {}),
            history_path=str(path) if path is not None else None,
        )

    def format_config(self) -> Any:
        """The `kimina_format.FormatConfig` these settings select (its defaults plus the `format` overrides)."""
        from kimina_format import FormatConfig

        known = {f.name for f in fields(FormatConfig)}
        _reject_unknown(self.format, known, "kimina_rl.format")
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in self.format.items()}
        return replace(FormatConfig(), **values)


def _plain(value: Any) -> Any:
    """Turn omegaconf containers into plain dicts and lists (resolving interpolations)."""
    from omegaconf import OmegaConf

    if OmegaConf.is_config(value):
        return OmegaConf.to_container(value, resolve=True)
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    return value


def _build[T: (VerifierSettings, FixSettings)](cls: type[T], values: Mapping[str, Any] | None, where: str) -> T:
    values = dict(values or {})
    _reject_unknown(values, {f.name for f in fields(cls)}, where)
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from exc


def _reject_unknown(values: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def _require_positive(obj: object, *names: str) -> None:
    for name in names:
        if not getattr(obj, name) > 0:
            raise ValueError(f"{name} must be positive, got {getattr(obj, name)!r}")


def _require_non_negative(obj: object, *names: str) -> None:
    for name in names:
        if not getattr(obj, name) >= 0:
            raise ValueError(f"{name} must not be negative, got {getattr(obj, name)!r}")
