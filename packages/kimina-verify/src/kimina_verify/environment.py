"""Which Lean a verification server runs, read from the `lean_env` of its `/health`, in words a report can show.

kimina-verify's server reports `lean-repl-sim/<version> <args>` for its stand-in and `<toolchain> mathlib@<rev>` for
a Lean workspace; other kimina-lean-servers report a `lean_version`, or nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["LeanEnvironment", "STAND_IN", "is_stand_in"]

STAND_IN = "lean-repl-sim"
"""The name the stand-in REPL reports itself by: `lean_env` starts with `lean-repl-sim/`."""

_MATHLIB = re.compile(r"\bmathlib@(\S+)")


@dataclass(frozen=True)
class LeanEnvironment:
    """A verification server's Lean environment, as its `/health` names it.

    Attributes:
        lean_env: The server's `lean_env` (else its `lean_version`); None when it reports neither.
    """

    lean_env: str | None

    @classmethod
    def from_health(cls, health: Mapping[str, Any]) -> LeanEnvironment:
        """Read a `/health` JSON object (kimina-verify's or any kimina-lean-server's)."""
        found = health.get("lean_env") or health.get("lean_version")
        return cls(str(found).strip() if found else None)

    @property
    def stand_in(self) -> bool:
        """True when the verdicts come from `lean-repl-sim`, which runs no Lean: they are not proofs."""
        return is_stand_in(self.lean_env)

    @property
    def toolchain(self) -> str | None:
        """The Lean toolchain (`leanprover/lean4:v4.15.0`), when the server names one."""
        if self.lean_env is None or self.stand_in:
            return None
        first = self.lean_env.split()[0]
        return None if first.startswith("mathlib@") else first

    @property
    def mathlib(self) -> str | None:
        """The Mathlib revision, when the server names one."""
        match = _MATHLIB.search(self.lean_env or "")
        return match.group(1) if match else None

    def describe(self) -> str:
        """One line for a summary: the stand-in said plainly, else the toolchain and Mathlib revision."""
        if self.lean_env is None:
            return "unknown Lean environment (the server's /health does not name one)"
        if self.stand_in:
            return f"{self.lean_env}: a STAND-IN for the Lean REPL, no Lean ran; its verdicts are not proofs"
        if self.toolchain is None and self.mathlib is None:
            return f"Lean {self.lean_env}"
        parts = [f"Lean {self.toolchain or '(toolchain not reported)'}"]
        parts.append(f"Mathlib {self.mathlib}" if self.mathlib else "Mathlib revision not reported")
        return ", ".join(parts)


def is_stand_in(lean_env: str | None) -> bool:
    """Whether a `lean_env` names the stand-in REPL (`lean-repl-sim/...`)."""
    return lean_env is not None and lean_env.strip().startswith(STAND_IN)
