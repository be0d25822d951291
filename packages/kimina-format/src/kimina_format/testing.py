"""Well-formed sample completions for tests, here and in the packages that build on kimina-format.

`build_completion()` returns a small completion that passes every default rule; its keyword arguments change one
part at a time, so a test can break exactly the rule it is about.
"""

from __future__ import annotations

from collections.abc import Sequence

SAMPLE_HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)
SAMPLE_STATEMENT = "theorem sq_example (x : ℝ) (h : 0 ≤ x) : x ^ 2 + 1 ≥ 2 * x := by"
SAMPLE_PROOF = "  nlinarith [sq_nonneg (x - 1), sq_nonneg (x + 1), h]"
SAMPLE_FORMAL_STATEMENT = SAMPLE_HEADER + SAMPLE_STATEMENT + "\n  sorry"
"""The statement `build_completion()` proves, as a dataset would give it (header, statement, `sorry`)."""


def build_completion(
    *,
    blocks: Sequence[str] = ("  nlinarith [sq_nonneg (x - 1), h]", SAMPLE_PROOF),
    proof: str = SAMPLE_PROOF,
    statement: str = SAMPLE_STATEMENT,
    header: str = SAMPLE_HEADER,
    reasoning: str = "We expand the square: (x - 1)^2 is non-negative, which rearranges to the inequality we want.",
    before: str = "",
    after: str = "",
    code_fence: str = "lean4",
) -> str:
    """A small completion in the Kimina format that passes every default rule (with `SAMPLE_FORMAL_STATEMENT`).

    Args:
        blocks: The ```` ```tactics ```` blocks of the thinking, in order.
        proof: The proof body of the final code (indented tactic lines).
        statement: The theorem statement of the final code.
        header: The final code's header (imports, options, opens).
        reasoning: Natural-language reasoning at the start of the thinking.
        before: Text before `<think>`.
        after: Text after the final block's closing fence.
        code_fence: The final block's fence language.

    Returns:
        The completion text; its final code is the header, the statement, a newline and the proof.
    """
    parts = [before, "<think>\n", reasoning, "\n\n"]
    for i, block in enumerate(blocks, 1):
        parts.append(f"Step {i} of the plan, in Lean:\n\n```tactics\n{block}\n```\n\n")
    parts.append("That closes the goal.\n</think>\n")
    parts.append(f"```{code_fence}\n{header}{statement}\n{proof}\n```{after}")
    return "".join(parts)
