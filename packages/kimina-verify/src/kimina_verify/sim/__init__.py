"""`lean-repl-sim`: a stand-in for the Lean REPL that follows its protocol exactly, for tests and benchmarks."""

from kimina_verify.sim.cli import main

__all__ = ["main"]
