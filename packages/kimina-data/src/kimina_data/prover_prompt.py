"""The prover's first-turn prompt for a dataset row: the one builder behind the RL parquet and kimina-eval alike."""

from __future__ import annotations

from kimina_format.prompts import TemplateName, build_messages

__all__ = ["prover_messages"]


def prover_messages(
    statement: str, informal_problem: str | None, *, template: TemplateName = "rl"
) -> list[dict[str, str]]:
    """The chat (system, user) a prover is shown for one problem, from a normalised row.

    Every caller passes what kimina-data's normalise step writes, so the same problem gets the same prompt in training,
    validation and evaluation: `statement` is the row's header followed by its statement (ending in `:= by`, no
    trailing blank line), `informal_problem` plain text (no `/-- ... -/` doc comment, layout tidied by `clean_text`).

    Args:
        statement: Header + formal statement, as the model must keep it.
        informal_problem: The problem in words; None leaves the `# Problem:` section out.
        template: `rl` (the Kimina-Prover-RL training prompt, the default everywhere) or `distill`.
    """
    return build_messages(statement, informal_problem, template=template)
