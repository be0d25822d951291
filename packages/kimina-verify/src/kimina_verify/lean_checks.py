"""The checks run in Lean after a snippet, as their own REPL command in the environment the snippet produced.

Nothing in the model's text can swallow or redirect a command it does not textually precede, so these are never
appended to it. One command (`check_command`) carries, each on its own line:

```
#print "kimina-nonce <hex>"            -- the reply is this command's: the nonce comes back as an info message
set_option pp.maxSteps 1 in
#print _root_.NAME                     -- `theorem NAME : ⋯ :=` : the constant exists and is a theorem
set_option pp.all true in ...
#check _root_.NAME                     -- `NAME (x : Real) ... : @Eq ...` : its type, fully explicit, full names
#print axioms _root_.NAME              -- `'NAME' depends on axioms: [...]`, the name checked
```

`_root_.` makes every name resolve from the root whatever scopes the snippet left open (a REPL environment carries
its command state: open namespaces, options, variables). The dataset statement is elaborated in the header's own
environment and read by the same command, so the two types compare as printed by Lean (`pp.all`, `pp.fullNames`).
The server runs the commands (`kimina-verify serve`; snippet field `kimina_checks`), the client compares the facts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kimina_verify.axioms import lean_name, parse_axioms

__all__ = [
    "EXTENSION",
    "FIELD",
    "OMITTED",
    "CheckCommand",
    "ChecksRequest",
    "TargetFacts",
    "check_command",
    "nonce_seen",
    "read_facts",
    "same_name",
]

EXTENSION = "kimina_checks/1"
"""What a server that runs these checks lists in `/health`'s `extensions`."""
FIELD = "kimina_checks"
"""The snippet field that asks for the checks, and the result field that answers them."""
_TYPE_OPTIONS = (
    ("pp.all", "true"),
    ("pp.fullNames", "true"),
    ("pp.explicit", "true"),
    ("pp.universes", "true"),
    ("pp.notation", "false"),
    ("pp.coercions", "false"),
    ("pp.proofs", "true"),
    ("pp.funBinderTypes", "true"),
    ("pp.maxSteps", "100000000"),
)
"""Options for printing the target's type: every implicit argument, instance, universe and coercion, full names, no
notation, nothing omitted. Set explicitly, so no option the snippet set can change them."""
OMITTED = "⋯"
_NONCE_PREFIX = "kimina-nonce "
_KIND_MODIFIERS = frozenset({"private", "protected", "unsafe", "partial", "noncomputable", "meta"})


@dataclass(frozen=True)
class ChecksRequest:
    """What a client asks the server to check after a snippet.

    Attributes:
        theorem: Full name of the target theorem.
        statement: The dataset statement's code after its imports (its `open`/`set_option` lines, definitions and
            theorem with `sorry`), elaborated in the snippet's header environment to get the expected type; None
            to check only that the target exists, is a theorem, and its axioms.
    """

    theorem: str
    statement: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The snippet field's value."""
        data: dict[str, Any] = {"theorem": self.theorem}
        if self.statement is not None:
            data["statement"] = self.statement
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChecksRequest:
        """Read the snippet field (raises `ValueError` when it is malformed)."""
        theorem, statement = data.get("theorem"), data.get("statement")
        if not isinstance(theorem, str) or not theorem.strip() or len(theorem) > 1000:
            raise ValueError("kimina_checks.theorem must be a non-empty name")
        lean_name(theorem.strip().removeprefix("_root_."))  # a name Lean can read: nothing to break out of it
        if statement is not None and not isinstance(statement, str):
            raise ValueError("kimina_checks.statement must be a string")
        return cls(theorem.strip().removeprefix("_root_."), statement)


@dataclass(frozen=True)
class TargetFacts:
    """What Lean said about a constant: its kind, printed type and axioms, and the errors of the check command.

    Attributes:
        name: The constant asked about.
        kind: `theorem`, `def`, `axiom`, ... as `#print` names it; None when Lean did not say.
        type: Its signature as `#check` prints it under `check_command`'s `pp` options; None when Lean did not say.
        axioms: The axioms it depends on; None when Lean did not report them for this name.
        errors: Error messages of the check command (an unknown constant, ...).
    """

    name: str
    kind: str | None = None
    type: str | None = None
    axioms: tuple[str, ...] | None = None
    errors: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict that `from_json` reads back."""
        return {
            "name": self.name,
            "kind": self.kind,
            "type": self.type,
            "axioms": list(self.axioms) if self.axioms is not None else None,
            "errors": list(self.errors),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TargetFacts:
        """Read a dict written by `to_json` (leniently: missing fields are unknown)."""
        axioms = data.get("axioms")
        kind, type_ = data.get("kind"), data.get("type")
        return cls(
            name=str(data.get("name", "")),
            kind=kind if isinstance(kind, str) else None,
            type=type_ if isinstance(type_, str) else None,
            axioms=tuple(str(a) for a in axioms) if isinstance(axioms, list) else None,
            errors=tuple(str(e) for e in data.get("errors") or ()),
        )


@dataclass(frozen=True)
class CheckCommand:
    """A check command's text and the line each answer comes back on."""

    text: str
    nonce: str
    nonce_line: int
    kind_line: int | None = None
    type_line: int | None = None
    axioms_line: int | None = None


def check_command(nonce: str, theorem: str | None) -> CheckCommand:
    """The command that proves the reply is in step (`nonce`), and checks `theorem` when given."""
    if not re.fullmatch(r"[0-9a-f]{8,64}", nonce):
        raise ValueError("the nonce must be hex")
    lines = [f'#print "{_NONCE_PREFIX}{nonce}"']
    if theorem is None:
        return CheckCommand("\n".join(lines), nonce, 1)
    name = "_root_." + lean_name(theorem)
    lines += ["set_option pp.maxSteps 1 in", f"#print {name}"]
    kind_line = len(lines)
    lines += [f"set_option {option} {value} in" for option, value in _TYPE_OPTIONS]
    lines.append(f"#check {name}")
    type_line = len(lines)
    lines.append(f"#print axioms {name}")
    return CheckCommand("\n".join(lines), nonce, 1, kind_line, type_line, len(lines))


def nonce_seen(reply: Mapping[str, Any], command: CheckCommand) -> bool:
    """Whether `reply` is the answer to `command`: its nonce comes back as an info message on its line."""
    return any(
        m.get("severity") == "info"
        and _line(m) == command.nonce_line
        and m.get("data") == _NONCE_PREFIX + command.nonce
        for m in _messages(reply)
    )


def read_facts(reply: Mapping[str, Any], command: CheckCommand, theorem: str) -> TargetFacts:
    """What the reply to `check_command(nonce, theorem)` says about `theorem`."""
    kind = type_ = None
    axioms: tuple[str, ...] | None = None
    errors = []
    for m in _messages(reply):
        line, data, severity = _line(m), str(m.get("data", "")), m.get("severity")
        if severity == "error":
            errors.append(data)
        elif severity != "info":
            continue
        elif line == command.kind_line:
            kind = _kind(data, theorem)
        elif line == command.type_line:
            type_ = data
        elif line == command.axioms_line:
            parsed = parse_axioms(data)
            if parsed is not None and same_name(parsed[0], theorem):
                axioms = parsed[1]
    if "message" in reply:
        errors.append(str(reply["message"]))
    return TargetFacts(theorem, kind, type_, axioms, tuple(errors))


def same_name(printed: str, name: str) -> bool:
    """Whether Lean's printing of a name (with `«»` where needed) is `name`."""
    return printed.replace("«", "").replace("»", "") == name.replace("«", "").replace("»", "")


def _kind(data: str, theorem: str) -> str | None:
    """`theorem` from `@[reducible] protected theorem NAME.{u} : ⋯ :=` when NAME is `theorem`, else None."""
    header = data.split("\n", 1)[0]
    header = re.sub(r"^@\[[^\]]*\]\s*", "", header)
    words = header.split()
    while words and words[0] in _KIND_MODIFIERS:
        words = words[1:]
    if len(words) < 2:
        return None
    printed = words[1].split(".{", 1)[0]
    return words[0] if same_name(printed, theorem) else None


def _messages(reply: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    messages = reply.get("messages")
    return [m for m in messages if isinstance(m, Mapping)] if isinstance(messages, list) else []


def _line(message: Mapping[str, Any]) -> int | None:
    pos = message.get("pos")
    return pos.get("line") if isinstance(pos, Mapping) and isinstance(pos.get("line"), int) else None
