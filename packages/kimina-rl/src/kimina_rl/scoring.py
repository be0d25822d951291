"""What a dataset row asks for (`Problem`), one checked answer (`Attempt`), and the reward dict verl receives."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kimina_format import FormatVerdict
    from kimina_verify import Verdict

    from kimina_rl.settings import Settings

REWARD_KEYS = (
    "score",
    "acc",
    "acc_turn_1",
    "acc_turn_2",
    "fix_turn",
    "format_ok",
    "format_score",
    "length_penalty",
    "violations",
    "verdict",
    "check_time_s",
    "cache_hit",
)
"""Keys of every reward dict, in order. verl builds its metric arrays from the first sample's keys, so every sample,
single-turn or with a fix turn, carries exactly these."""

NO_CODE = "no_code"
"""The `verdict` value when the completion had no final Lean block to verify."""

_VALIDATION_SPLITS = frozenset({"val", "valid", "validation", "test"})
_ID_KEYS = ("uid", "uuid", "statement_id", "name")


@dataclass(frozen=True)
class Problem:
    """The theorem a verl row asks for, as the reward needs it.

    Attributes:
        formal_statement: The full statement the model was shown (header included), checked against its proof.
        problem_id: Stable id for the win-rate history (the row's uid, else a hash of the statement).
        data_source: The row's `data_source`.
        informal_problem: The problem in words, when the row has it.
        training: False for rows marked as validation (`extra_info.split` of val/valid/test); only training
            rollouts enter the win-rate history.
    """

    formal_statement: str
    problem_id: str
    data_source: str = ""
    informal_problem: str | None = None
    training: bool = True

    @classmethod
    def from_row(cls, data_source: str, ground_truth: Any, extra_info: Mapping[str, Any] | None) -> Problem:
        """Read a row as kimina-data writes it (`extra_info.header` + `extra_info.formal_statement`).

        Upstream-style rows (the full statement in `extra_info.formal_statement`) and rows that carry the statement
        only in `reward_model.ground_truth` work too.

        Raises:
            ValueError: The row names no statement at all.
        """
        info = extra_info or {}
        statement = info.get("formal_statement") or (ground_truth if isinstance(ground_truth, str) else None)
        if not statement or not str(statement).strip():
            raise ValueError(
                f"row of data_source {data_source!r} has no formal statement: "
                "set extra_info.formal_statement (or reward_model.ground_truth)"
            )
        full = str(info.get("header") or "") + str(statement)
        problem_id = next((str(info[key]) for key in _ID_KEYS if info.get(key) not in (None, "")), None)
        if problem_id is None:
            # `surrogatepass`: text UTF-8 cannot encode gets its verdict from the verifier, not an exception here.
            problem_id = "sha256:" + hashlib.sha256(full.encode("utf-8", errors="surrogatepass")).hexdigest()[:16]
        informal = info.get("informal_problem")
        split = str(info.get("split") or "").lower()
        return cls(
            formal_statement=full,
            problem_id=problem_id,
            data_source=str(data_source or ""),
            informal_problem=str(informal) if informal else None,
            training=split not in _VALIDATION_SPLITS,
        )


@dataclass(frozen=True)
class Attempt:
    """One answer, checked: its format verdict and, when it had a final Lean block, Lean's verdict.

    Attributes:
        text: The answer as decoded.
        format: kimina-format's verdict (its `score` already holds the length penalty).
        verdict: kimina-verify's verdict; None when there was no code to verify.
    """

    text: str
    format: FormatVerdict
    verdict: Verdict | None

    @property
    def code(self) -> str | None:
        """The final Lean block, if any."""
        code: str | None = self.format.completion.code
        return code

    @property
    def solved(self) -> bool:
        """Lean accepted the proof (whatever the format)."""
        return self.verdict is not None and self.verdict.ok

    @property
    def score(self) -> float:
        """Format score (0 on a broken rule, else 1 minus the length penalty) times Lean's acceptance."""
        return float(self.format.score) if self.solved else 0.0

    @property
    def fixable(self) -> bool:
        """Worth a fix turn, by the attempt protocol (`kimina_verify.attempts.gets_fix_turn`).

        That is code whose format holds and that Lean refused (`lean_error` or `sorry`); not a timeout, an integrity
        rejection or an infrastructure failure.
        """
        from kimina_verify.attempts import gets_fix_turn

        return gets_fix_turn(format_ok=self.format.ok, code=self.code, verdict=self.verdict)


def unencodable_attempt(text: str, settings: Settings) -> Attempt | None:
    """The attempt for a response UTF-8 cannot encode (it holds a lone surrogate), else None.

    Its verdict is `integrity` (kimina-verify's `text_encoding`) and its format verdict is that of the text with the
    surrogates replaced, so one such sample scores 0 instead of raising for the whole batch. (Other characters Lean
    cannot take, NUL or control characters in the code, get the same verdict from the verifier.)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return None
    from kimina_format import check_format
    from kimina_verify import Verdict
    from kimina_verify.hygiene import safe_text, text_violation

    violation = text_violation(text, "the response")
    assert violation is not None  # a lone surrogate is one
    verdict_format = check_format(safe_text(text), config=settings.format_config())
    return Attempt(text, verdict_format, Verdict.integrity([violation]))


def reward_info(final: Attempt, first: Attempt | None = None, *, fix_reward_scale: float = 1.0) -> dict[str, Any]:
    """The reward dict for a trajectory: `score` drives training, `acc` validation, the rest is logged.

    Args:
        final: The attempt that is scored (the revision when a fix turn ran, else the only attempt).
        first: The first attempt, when a fix turn followed it.
        fix_reward_scale: Factor on the score of a proof found in the fix turn.

    Returns:
        A dict with exactly `REWARD_KEYS`: numbers are floats, `violations` is a comma-separated list of violation
        codes and `verdict` a verdict kind (or `no_code`), so verl's validation metrics skip the strings.
    """
    turns = [final] if first is None else [first, final]
    return {
        "score": final.score * (fix_reward_scale if first is not None else 1.0),
        "acc": float(final.solved),
        "acc_turn_1": float(turns[0].solved),
        "acc_turn_2": float(final.solved),
        "fix_turn": float(first is not None),
        "format_ok": float(final.format.ok),
        "format_score": float(final.format.score),
        "length_penalty": float(final.format.length_penalty),
        "violations": ",".join(str(code) for code in final.format.codes),
        "verdict": final.verdict.kind.value if final.verdict is not None else NO_CODE,
        "check_time_s": float(sum(t.verdict.time_s or 0.0 for t in turns if t.verdict is not None)),
        "cache_hit": float(final.verdict is not None and final.verdict.cached),
    }


REWARD_FIELD = "kimina_reward"
"""`extra_info` key where the `kimina_fix` agent loop leaves the reward it computed (verl merges its `extra_fields`)."""
REWARD_SEAL_FIELD = "kimina_reward_seal"
"""`extra_info` key of the seal that proves `REWARD_FIELD` came from the agent loop, not from a dataset row."""
REWARD_KEY_ENV = "KIMINA_REWARD_KEY"
"""Environment variable holding the key of the seal; set it for the whole cluster so that every worker shares it."""


def _reward_key() -> bytes:
    # A process without the variable makes one up (and its children inherit it): a seal from elsewhere then fails and
    # the trajectory is scored again, which costs time but never trusts a number a dataset row brought.
    key = os.environ.get(REWARD_KEY_ENV)
    if not key:
        key = os.environ.setdefault(REWARD_KEY_ENV, secrets.token_hex(32))
    return key.encode()


def seal_reward(info: Mapping[str, Any]) -> str:
    """The seal of a reward dict: an HMAC of its canonical JSON under the key of `REWARD_KEY_ENV`."""
    payload = json.dumps(dict(info), sort_keys=True, default=str).encode()
    return hmac.new(_reward_key(), payload, hashlib.sha256).hexdigest()


def sealed_reward(extra_info: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The reward the agent loop left in `extra_info`, if its seal holds; None otherwise (score the sample).

    A dataset row that carries its own `kimina_reward` mapping cannot seal it without the key, so it never sets its
    own reward.
    """
    ready = (extra_info or {}).get(REWARD_FIELD)
    seal = (extra_info or {}).get(REWARD_SEAL_FIELD)
    if not isinstance(ready, Mapping) or not isinstance(seal, str):
        return None
    return dict(ready) if hmac.compare_digest(seal, seal_reward(ready)) else None
