"""The attempt protocol every prover loop follows: turn numbers, which failures get a fix turn, feedback, retries.

One set of rules for the RL agent loop (kimina-rl `kimina_fix`), the evaluation runner and the lemma search
(kimina-eval) and the prover API (kimina-api), so that training, evaluation and serving measure the same thing:

- **Turns** are numbered `FIRST_TURN` (1) and `FIX_TURN` (2); there is at most one fix turn.
- **A fix turn** goes to an attempt that had a final ``lean4`` block, whose format holds, and that Lean itself refused
  (`FIXABLE_KINDS`: `lean_error`, or `sorry` for an incomplete proof). Not to a valid proof, not to an attempt
  without code, not to one that broke the format rules (its revision would be scored against a broken first turn),
  not to a timeout (nothing in it says what to change, and it depends on the server's load), not to an integrity
  rejection (telling the model which rule caught it teaches it to slip past the rule), and never to an
  infrastructure failure (not the model's mistake; retried instead).
- **Feedback** is `render_feedback` with `FEEDBACK_MAX_ERRORS` and `FEEDBACK_MAX_CHARS`, put in the prompt by
  `fix_messages` (kimina-format's `build_fix_messages`: the first prompt, the failed completion, then Lean's report).
- **Retries** have one layer: the caller's. Callers build their `Verifier` with `retries=CLIENT_RETRIES` (0) and
  re-verify what came back ``infra`` with `verify_retrying` under a `RetryPolicy` (kimina-rl's reward too: its
  policy's rounds fit in its time budget, ``infra_retry_s``, and it raises once the clock says the budget is spent).
  Two layers multiply (3 client retries x 3 rounds = 12 calls per snippet) and make the wait on an outage hard to
  predict.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from kimina_format.prompts import build_fix_messages

from kimina_verify.feedback import render_feedback
from kimina_verify.verdict import Verdict, VerdictKind

__all__ = [
    "CLIENT_RETRIES",
    "FEEDBACK_MAX_CHARS",
    "FEEDBACK_MAX_ERRORS",
    "FIRST_TURN",
    "FIXABLE_KINDS",
    "FIX_TURN",
    "RetryPolicy",
    "fix_feedback",
    "fix_messages",
    "gets_fix_turn",
    "verify_retrying",
]

logger = logging.getLogger(__name__)

FIRST_TURN = 1
"""The number of a first attempt, everywhere (records, metrics, API responses)."""
FIX_TURN = 2
"""The number of the one error-fix turn that may follow a first attempt."""

FIXABLE_KINDS = frozenset({VerdictKind.LEAN_ERROR, VerdictKind.SORRY})
"""Verdict kinds that earn a fix turn (with code and a format that holds): Lean refused or found the proof unfinished."""

FEEDBACK_MAX_ERRORS = 3
"""Lean errors shown in a fix turn (upstream's `filter_error_messages(max_errors=3)`)."""
FEEDBACK_MAX_CHARS = 3000
"""Character budget of the rendered feedback (upstream's `multiturn_max_feedback_length`; cut, never dropped)."""

CLIENT_RETRIES = 0
"""`Verifier(retries=...)` for every caller of this protocol: retries happen in one layer, the caller's."""


def gets_fix_turn(*, format_ok: bool | None, code: str | None, verdict: Verdict | VerdictKind | str | None) -> bool:
    """Whether a first attempt earns the error-fix turn (see the module's rules).

    Args:
        format_ok: Whether the completion passed kimina-format's rules (None: unknown, treated as not passed).
        code: The final ``lean4`` block, or None when there was none.
        verdict: Lean's verdict on the code, its kind, or the kind's string value as records store it; None (or any
            string that is no verdict kind, such as ``no_proof``) when nothing was verified.

    Example:
        >>> gets_fix_turn(format_ok=True, code="theorem t : 1 = 2 := by simp", verdict="lean_error")
        True
        >>> gets_fix_turn(format_ok=True, code="theorem t : 1 = 2 := by simp", verdict="timeout")
        False
    """
    if not format_ok or code is None or verdict is None:
        return False
    if isinstance(verdict, Verdict):
        kind: VerdictKind | str = verdict.kind
    else:
        kind = verdict
    try:
        return VerdictKind(kind) in FIXABLE_KINDS
    except ValueError:
        return False


def fix_feedback(
    code: str, verdict: Verdict, *, max_errors: int = FEEDBACK_MAX_ERRORS, max_chars: int = FEEDBACK_MAX_CHARS
) -> str:
    """Lean's verdict rendered for the fix turn, with the protocol's budgets (see `render_feedback`)."""
    return render_feedback(code, verdict, max_errors=max_errors, max_chars=max_chars)


def fix_messages(
    prompt: Sequence[Mapping[str, str]],
    completion: str,
    feedback: str,
) -> list[dict[str, str]]:
    """The fix turn's chat: `prompt`, the failed `completion` as the assistant turn, then the rendered `feedback`."""
    return build_fix_messages(prompt, completion, feedback)


@dataclass(frozen=True)
class RetryPolicy:
    """How a caller re-verifies what came back ``infra`` (the client itself does not retry: `CLIENT_RETRIES`).

    Attributes:
        rounds: Rounds of re-verification after the first call.
        first_delay_s: Wait before the first round; doubles each round.
        max_delay_s: Longest wait between two rounds.
    """

    rounds: int = 5
    first_delay_s: float = 2.0
    max_delay_s: float = 30.0

    def __post_init__(self) -> None:
        if self.rounds < 0 or self.first_delay_s < 0 or self.max_delay_s < 0:
            raise ValueError("rounds and delays must not be negative")

    def delays(self) -> list[float]:
        """The wait before each round, in order."""
        out, delay = [], self.first_delay_s
        for _ in range(self.rounds):
            out.append(min(delay, self.max_delay_s))
            delay *= 2
        return out


async def verify_retrying[T](
    call: Callable[[list[T]], Awaitable[Sequence[Verdict]]],
    items: Sequence[T],
    policy: RetryPolicy,
    *,
    label: str = "",
) -> tuple[list[Verdict], list[int]]:
    """Call `call(items)`, then call it again for the items still ``infra``, in spaced rounds.

    Args:
        call: Verifies a list of items, one verdict each, in order (`Verifier.verify`, or a wrapper of it).
        items: What to verify.
        policy: Rounds and delays.
        label: Named in the warning logged before each round (a problem name, say).

    Returns:
        The last verdict of each item (``infra`` when every round failed) and how many calls each item took.
    """
    if not items:
        return [], []
    todo = list(items)
    verdicts = list(await call(todo))
    tries = [1] * len(todo)
    for delay in policy.delays():
        again = [i for i, v in enumerate(verdicts) if v.is_infra]
        if not again:
            break
        where = f"{label}: " if label else ""
        logger.warning("%s%d snippets hit infrastructure failures; retrying in %.0f s", where, len(again), delay)
        await asyncio.sleep(delay)
        for i, verdict in zip(again, await call([todo[i] for i in again]), strict=True):
            verdicts[i] = verdict
            tries[i] += 1
    return verdicts, tries
