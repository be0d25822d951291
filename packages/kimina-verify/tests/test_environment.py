"""`LeanEnvironment`: what a server's /health says about its Lean, in words a summary can show."""

import pytest
from kimina_verify.environment import LeanEnvironment, is_stand_in

REV = "a3e910d1569d6b943debabe63afe6e3a3d4061ff"


@pytest.mark.parametrize(
    ("health", "stand_in", "described"),
    [
        ({"lean_env": "lean-repl-sim/0.4.0 --backticks"}, True, "lean-repl-sim/0.4.0 --backticks: a STAND-IN"),
        (
            {"lean_env": f"leanprover/lean4:v4.15.0 mathlib@{REV}"},
            False,
            f"Lean leanprover/lean4:v4.15.0, Mathlib {REV}",
        ),
        (
            {"lean_env": "leanprover/lean4:v4.15.0"},
            False,
            "Lean leanprover/lean4:v4.15.0, Mathlib revision not reported",
        ),
        ({"lean_env": f"mathlib@{REV}"}, False, f"Lean (toolchain not reported), Mathlib {REV}"),
        ({"lean_version": "v4.15.0"}, False, "Lean v4.15.0"),  # an upstream kimina-lean-server
        ({"status": "ok"}, False, "unknown Lean environment"),
    ],
)
def test_health_is_described(health: dict[str, str], stand_in: bool, described: str) -> None:
    environment = LeanEnvironment.from_health(health)
    assert environment.stand_in is stand_in
    assert environment.describe().startswith(described)


def test_only_the_stand_in_is_the_stand_in() -> None:
    assert is_stand_in("lean-repl-sim/0.4.0") and is_stand_in(" lean-repl-sim/0.4.0 --verdicts x.jsonl")
    # Look-alikes: a real toolchain whose path mentions the sim, and no environment at all.
    assert not is_stand_in("leanprover/lean4:v4.15.0 mathlib@lean-repl-sim") and not is_stand_in(None)
