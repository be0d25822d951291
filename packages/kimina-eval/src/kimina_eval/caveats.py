"""What a report must say before its numbers: which Lean graded the runs, and whether compared runs are comparable."""

from __future__ import annotations

from collections.abc import Sequence

from kimina_verify.environment import LeanEnvironment

from kimina_eval.summary import RunSummary


def stand_in_warning(summaries: Sequence[RunSummary]) -> str | None:
    """A plain warning when any run was graded by the stand-in verifier (`lean-repl-sim`), else None."""
    stand_ins = [s for s in summaries if s.stand_in]
    if not stand_ins:
        return None
    names = ", ".join(f"`{s.name}`" for s in stand_ins)
    return (
        f"NOT REAL PROOFS: {names} {'was' if len(stand_ins) == 1 else 'were'} verified by `lean-repl-sim`, the "
        "stand-in for the Lean REPL: it runs no Lean and accepts any proof without `sorry`, so these pass rates "
        "measure the pipeline, not the prover. Serve a Lean workspace to measure proofs."
    )


def verifier_lines(summaries: Sequence[RunSummary]) -> list[str]:
    """One line per run naming the Lean that graded it (toolchain and Mathlib revision, or the stand-in)."""
    lines = []
    for s in summaries:
        known = [env for env in s.lean_envs if env is not None]
        described = "; ".join(LeanEnvironment(env).describe() for env in known) or "a Lean environment not recorded"
        if len(known) > 1:
            described = f"{len(known)} environments: {described}"
        unknown = s.lean_envs.get(None, 0)
        if unknown and known:
            described += f"; {unknown} attempts without a recorded environment"
        lines.append(f"`{s.name}` verified with {described}.")
    return lines


def comparison_warnings(summaries: Sequence[RunSummary]) -> list[str]:
    """Why runs compared with the first one may not be comparable: other problems, or other statements of them."""
    if len(summaries) < 2:
        return []
    main = summaries[0]
    warnings = []
    for other in summaries[1:]:
        ours, theirs = main.problem_names, other.problem_names
        shared = ours & theirs
        if ours != theirs:
            warnings.append(
                f"`{main.name}` covers {len(ours)} problems and `{other.name}` {len(theirs)} ({len(shared)} in "
                "common): their pass@k are averages over different problem sets."
            )
        differ = _different_statements(main, other, shared)
        if differ:
            warnings.append(
                f"`{main.name}` and `{other.name}` were given different statements for {differ} of the "
                f"{len(shared)} problems they share ({_settings(main)} against {_settings(other)})."
            )
    return warnings


def _different_statements(main: RunSummary, other: RunSummary, shared: frozenset[str]) -> int:
    """How many shared problems the two runs' datasets state differently.

    A problem whose statement cannot be read for one of the runs (its dataset file is gone, or it is not in it)
    counts as different when the runs' dataset or ``rectified`` settings differ.
    """
    settings_differ = (
        main.config is not None
        and other.config is not None
        and (main.config.dataset, main.config.rectified) != (other.config.dataset, other.config.rectified)
    )
    count = 0
    for problem in shared:
        ours = main.statements.get(problem) if main.statements else None
        theirs = other.statements.get(problem) if other.statements else None
        count += ours != theirs if ours is not None and theirs is not None else settings_differ
    return count


def _settings(summary: RunSummary) -> str:
    if summary.config is None:
        return "unknown dataset"
    statements = "corrected" if summary.config.rectified else "original"
    return f"dataset {summary.config.dataset}, {statements} statements"
