"""`#print axioms` support: the command we append to checked code and the parser for Lean's answer."""

from __future__ import annotations

import re

_DEPENDS = re.compile(r"^'(?P<name>.+?)' depends on axioms: \[(?P<axioms>.*)\]\s*$", re.DOTALL)
_NONE = re.compile(r"^'(?P<name>.+?)' does not depend on any axioms\s*$", re.DOTALL)


def lean_name(name: str) -> str:
    """`name` as Lean source: each component escaped with «» where needed (`my thm.x` is `«my thm».x`).

    Raises:
        ValueError: A component holds `»` (no Lean name can: an escape ends at the first `»`, so the rest would be
            read as code after the name) or is empty.
    """
    if "»" in name or any(not part for part in name.split(".")):
        raise ValueError(f"not a Lean name: {name[:80]!r}")
    return ".".join(p if re.fullmatch(r"[^\s.«»]+", p) else f"«{p}»" for p in name.split("."))


def print_axioms_command(name: str) -> str:
    """The Lean command that lists the axioms `name` depends on, resolved from the root whatever scope is open."""
    return "#print axioms _root_." + lean_name(name)


def parse_axioms(data: str) -> tuple[str, tuple[str, ...]] | None:
    """Parse the message of `#print axioms`: return (theorem name, its axioms), or None for any other message.

    Example:
        >>> parse_axioms("'t' depends on axioms: [propext, Quot.sound]")
        ('t', ('propext', 'Quot.sound'))
    """
    data = data.strip()
    if m := _NONE.match(data):
        return m.group("name"), ()
    if m := _DEPENDS.match(data):
        axioms = tuple(a.strip().replace("«", "").replace("»", "") for a in m.group("axioms").split(","))
        return m.group("name"), tuple(a for a in axioms if a)
    return None
