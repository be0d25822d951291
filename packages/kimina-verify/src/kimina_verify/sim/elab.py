r"""What `lean-repl-sim` answers: environments, declarations, sorries, `-- sim:` directives and recorded verdicts.

This is a stand-in for Lean elaboration with simple, documented rules. Code is accepted unless it uses `sorry`,
redeclares a name its environment already has, or carries a directive; code equal to a recorded row (see
`RecordedVerdicts`) gets that row's real verdict instead. Declarations get full names from `namespace`/`end` and
`_root_.`; each environment remembers its constants' kind, signature and axioms. The commands of the checks run in
Lean (`kimina_verify.lean_checks`) answer as Lean v4.15 is assumed to:

- `#print "S"`: an info message `S` at the command.
- `#print NAME` (under `set_option pp.maxSteps 1`): `theorem NAME : ⋯ :=\n⋯` (`def` for `def`/`abbrev`/`instance`,
  `axiom NAME : ⋯` for an axiom, `opaque`, `inductive`).
- `#check NAME` (under `pp.all`): `NAME <signature>`, the signature on one line with each name resolved to the full
  name of a constant of the environment (innermost namespace first), so a statement that reads another `Real.log`
  prints differently; a dotted `theorem A.t` resolves inside `A` as well (`expandDeclNamespace?`), and the binders of
  the variables a theorem includes (`include`, and every `[...]` instance variable) come first, as Lean v4.10+
  includes them. Notation, instances, sections' scoping of variables and `open` are not modelled.
- `#print axioms NAME`: `'NAME' depends on axioms: [...]` with the axioms a typical Mathlib proof depends on (see
  `Elaborator.axioms_of`); `unknown constant` (and `unknown identifier` for `#check`) for a `_root_.` name it lacks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from kimina_verify.sim.recorded import RecordedRow, RecordedVerdicts
from kimina_verify.sim.source import (
    Declaration,
    LineIndex,
    declarations,
    directives,
    full_name,
    goal_of,
    included_binders,
    mask,
    name_commands,
    namespaces_at,
    print_axioms_commands,
    print_strings,
    render_signature,
    sorry_offsets,
    split_imports,
    unescape,
    uses_tactics,
)

# Packages a stand-in workspace "has": importing anything else fails as a missing module would.
KNOWN_PACKAGES = frozenset(
    {"Init", "Lean", "Std", "Lake", "Mathlib", "Aesop", "Batteries", "Qq", "ProofWidgets", "Plausible", "ImportGraph"}
)
# What `#print axioms` reports for a Mathlib proof by tactics (`Classical.choice` via `by_contra`, `simp`, ...).
MATHLIB_AXIOMS = ("propext", "Classical.choice", "Quot.sound")
# Directives that change what the process does rather than what it answers.
EFFECTS = frozenset({"sleep", "crash", "hang", "hang-child", "garbage", "stderr", "alloc", "forge", "forge-later"})
# What `#print` calls each declaration keyword's constant.
_KINDS = {"theorem": "theorem", "lemma": "theorem", "def": "def", "abbrev": "def", "instance": "def"}


@dataclass(frozen=True, slots=True)
class Constant:
    """A constant of an environment: what `#print`, `#check` and `#print axioms` say about it."""

    kind: str
    signature: str
    axioms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Env:
    """A recorded environment: its imports and the constants declared in it, by full name."""

    imports: tuple[str, ...]
    constants: dict[str, Constant]

    @property
    def names(self) -> frozenset[str]:
        """The full names of its constants."""
        return frozenset(self.constants)


@dataclass(slots=True)
class Effects:
    """Side effects a command asks of the process: latency, crashing, hanging, noise, memory."""

    sleep_s: float = 0.0
    recorded_time_s: float | None = None
    crash: bool = False
    hang: bool = False
    hang_child_pidfile: str | None = None
    garbage: bool = False
    stderr_bytes: int = 0
    alloc_mb: float = 0.0
    imported: bool = False
    forge: bool = False
    forge_later_s: float | None = None


@dataclass(slots=True)
class Reply:
    """The JSON object to print, and the effects to perform before printing it."""

    json: dict[str, Any]
    effects: Effects = field(default_factory=Effects)


@dataclass(slots=True)
class Elaborator:
    """The REPL's state: environments and proof states, numbered from 0 per process and never freed."""

    backticks: bool = False
    recorded: RecordedVerdicts | None = None
    envs: list[Env] = field(default_factory=list)
    proof_states: int = 0

    def quote(self, name: str) -> str:
        """Quote a name in the spelling of the simulated Lean version."""
        return f"`{name}`" if self.backticks else f"'{name}'"

    def command(self, cmd: str, env: int | None) -> Reply:
        """Run `{"cmd": cmd, "env": env}`."""
        if env is not None and not 0 <= env < len(self.envs):
            return Reply({"message": "Unknown environment."})
        index = LineIndex(cmd)
        masked = mask(cmd)
        messages: list[dict[str, Any]] = []
        effects = Effects()
        imports, body_start = split_imports(cmd)
        if env is None:
            base = Env(tuple(module for module, _ in imports), {})
            effects.imported = bool(imports)
            for module, offset in imports:
                if module.split(".")[0] not in KNOWN_PACKAGES:
                    where = index.pos(offset)
                    messages.append(self._message("error", where, where, f"unknown module prefix {self.quote(module)}"))
        else:
            base = self.envs[env]
            for _, offset in imports:
                messages.append(
                    self._message(
                        "error",
                        index.pos(offset),
                        index.pos(offset + len("import")),
                        "invalid 'import' command, it must be used in the beginning of the file",
                    )
                )
        sorries: list[dict[str, Any]] = []
        recorded: list[dict[str, Any]] = []
        row = self.recorded.lookup(cmd) if self.recorded else None
        if row is not None:
            recorded = self._recorded_messages(row, cmd, body_start)  # kept in Lean's own order
            effects.recorded_time_s = row.repl_time_s
            effects.hang = row.timed_out
        else:
            self._declarations(masked, index, set(base.names), messages, sorries)
        declared = self._constants(masked, base, row.verdict if row else None)
        self._print_axioms(masked, index, base, declared, messages)
        self._name_commands(masked, index, base, declared, messages)
        self._print_strings(cmd, masked, index, messages)
        self._directives(cmd, messages, effects)
        self.envs.append(Env(base.imports, {**base.constants, **{name: c for _, name, c in declared}}))
        reply: dict[str, Any] = {"env": len(self.envs) - 1}
        messages = recorded + sorted(messages, key=lambda m: (m["pos"]["line"], m["pos"]["column"]))
        if messages:
            reply["messages"] = messages
        if sorries:
            reply["sorries"] = sorries
        return Reply(reply, effects)

    def tactic(self, proof_state: int) -> Reply:
        """Run a tactic on a proof state: the stand-in closes every goal."""
        if not 0 <= proof_state < self.proof_states:
            return Reply({"message": "Unknown proof state."})
        reply: dict[str, Any] = {"proofState": self._new_proof_state(), "goals": []}
        if self.backticks:
            reply["proofStatus"] = "Completed"
        return Reply(reply)

    def pickle_env(self, env: int, path: str) -> Reply:
        """`{"pickleTo": path, "env": env}`: save the environment (as JSON; the real REPL writes an .olean)."""
        if not 0 <= env < len(self.envs):
            return Reply({"message": "Unknown environment."})
        constants = {name: [c.kind, c.signature, list(c.axioms)] for name, c in self.envs[env].constants.items()}
        saved = {"imports": list(self.envs[env].imports), "constants": constants}
        with open(path, "w", encoding="utf-8") as out:
            json.dump(saved, out)
        return Reply({"env": env})

    def unpickle_env(self, path: str) -> Reply:
        """`{"unpickleEnvFrom": path}`: a new environment equal to the saved one."""
        with open(path, encoding="utf-8") as saved:
            data = json.load(saved)
        constants = {
            name: Constant(kind, signature, tuple(axioms))
            for name, (kind, signature, axioms) in data["constants"].items()
        }
        self.envs.append(Env(tuple(data["imports"]), constants))
        return Reply({"env": len(self.envs) - 1})

    def proof_snapshot(self, proof_state: int | None) -> Reply:
        """Pickling or unpickling a proof state: a new proof state whose goals the stand-in has closed."""
        if proof_state is not None and not 0 <= proof_state < self.proof_states:
            return Reply({"message": "Unknown proof State."})
        return Reply({"proofState": self._new_proof_state(), "goals": []})

    def _declarations(
        self,
        masked: str,
        index: LineIndex,
        names: set[str],
        messages: list[dict[str, Any]],
        sorries: list[dict[str, Any]],
    ) -> None:
        decls = declarations(masked)
        offsets = sorry_offsets(masked)
        spaces = namespaces_at(masked, [d.start for d in decls])
        for decl, namespace in zip(decls, spaces, strict=True):
            if decl.name is not None:
                name = full_name(decl.name, namespace)
                if name in names:
                    messages.append(
                        self._message(
                            "error",
                            index.pos(decl.name_start),
                            index.pos(decl.name_end),
                            f"{self.quote(name)} has already been declared",
                        )
                    )
                names.add(name)
            inside = [o for o in offsets if decl.start <= o < decl.end]
            for offset in inside:
                sorries.append(
                    {
                        "proofState": self._new_proof_state(),
                        "pos": index.pos(offset),
                        "goal": goal_of(decl.signature),
                        "endPos": index.pos(offset + len("sorry")),
                    }
                )
            if inside:
                sorry = "`sorry`" if self.backticks else "'sorry'"
                messages.append(
                    self._message(
                        "warning", index.pos(decl.name_start), index.pos(decl.name_end), f"declaration uses {sorry}"
                    )
                )
        # A `sorry` outside any declaration (e.g. in `#check`) still counts as one.
        for offset in offsets:
            if not any(d.start <= offset < d.end for d in decls):
                sorries.append(
                    {
                        "proofState": self._new_proof_state(),
                        "pos": index.pos(offset),
                        "goal": "⊢ ?_",
                        "endPos": index.pos(offset + len("sorry")),
                    }
                )

    def axioms_of(self, masked: str, decl: Declaration | None, recorded: bool | None = None) -> list[str]:
        """The axioms `#print axioms` reports for a declaration of this command (None: one of an earlier command).

        Rules: a declaration proved with a `by` block, one from an earlier command, or a recorded valid row depends
        on `MATHLIB_AXIOMS`; every `axiom` declared in the command counts, and so does `sorryAx` when the command
        contains `sorry` anywhere (or is a recorded failure: Lean elaborates a failed proof with `sorryAx`). A
        term-mode declaration with neither depends on no axioms. Sorted as Lean's `Name.lt` sorts them.
        """
        decls = declarations(masked)
        found = {d.name for d in decls if d.keyword == "axiom" and d.name}
        if recorded is not None or decl is None or uses_tactics(masked, decl):
            found.update(MATHLIB_AXIOMS)
        if sorry_offsets(masked) or recorded is False:
            found.add("sorryAx")
        return sorted(found, key=lambda name: (name.count(".") + 1, name.split(".")))

    def _constants(self, masked: str, base: Env, recorded: bool | None) -> list[tuple[int, str, Constant]]:
        """This command's constants, in order: (offset, full name, constant), signatures resolved as they go."""
        decls = [d for d in declarations(masked) if d.name is not None and d.keyword != "example"]
        known = dict(base.constants)
        found: list[tuple[int, str, Constant]] = []
        for decl, namespace in zip(decls, namespaces_at(masked, [d.start for d in decls]), strict=True):
            assert decl.name is not None
            name = full_name(decl.name, namespace)
            # `theorem Hack.target` elaborates inside `namespace Hack` (`expandDeclNamespace?`), within the current
            # namespace (which `_root_.` leaves in place for resolution).
            written = unescape(decl.name).removeprefix("_root_.").rpartition(".")[0]
            parts = [p for p in (*namespace.split("."), *written.split(".")) if p]

            def resolve(word: str, parts: list[str] = parts) -> str:
                for k in range(len(parts), -1, -1):
                    candidate = ".".join([*parts[:k], word])
                    if candidate in known:
                        return candidate
                return word

            kind = _KINDS.get(decl.keyword, decl.keyword if decl.keyword in ("axiom", "opaque") else "inductive")
            signature = decl.signature
            if kind == "theorem":  # the variables it includes become binders of its type
                signature = " ".join([*included_binders(masked, decl.start), signature])
            constant = Constant(
                kind, render_signature(signature, resolve), tuple(self.axioms_of(masked, decl, recorded))
            )
            known[name] = constant
            found.append((decl.start, name, constant))
        return found

    def _lookup(self, written: str, at: int, base: Env, declared: list[tuple[int, str, Constant]]) -> Constant | None:
        """The constant a command at offset `at` names (`_root_.` aside), declared before it or in `base`."""
        name = unescape(written).removeprefix("_root_.")
        here = [c for start, n, c in declared if n == name and start < at]
        return here[-1] if here else base.constants.get(name)

    def _print_axioms(
        self,
        masked: str,
        index: LineIndex,
        base: Env,
        declared: list[tuple[int, str, Constant]],
        messages: list[dict[str, Any]],
    ) -> None:
        for command in print_axioms_commands(masked):
            constant = self._lookup(command.name, command.start, base, declared)
            name = command.name.removeprefix("_root_.")  # Lean prints the name escaped where needed
            if constant is None:
                messages.append(
                    self._message(
                        "error",
                        index.pos(command.name_start),
                        index.pos(command.name_end),
                        f"unknown constant {self.quote(name)}",
                    )
                )
                continue
            quoted = f"'{name}'"  # Lean quotes this name with ' in every version
            text = (
                f"{quoted} depends on axioms: [{', '.join(constant.axioms)}]"
                if constant.axioms
                else f"{quoted} does not depend on any axioms"
            )
            start = index.pos(command.start)
            messages.append(self._message("info", start, index.pos(command.start + len("#print")), text))

    def _name_commands(
        self,
        masked: str,
        index: LineIndex,
        base: Env,
        declared: list[tuple[int, str, Constant]],
        messages: list[dict[str, Any]],
    ) -> None:
        """`#print NAME` and `#check NAME` for constants of the environment (others stay silent, as Mathlib's are)."""
        for command in name_commands(masked):
            constant = self._lookup(command.name, command.start, base, declared)
            name = command.name.removeprefix("_root_.")
            if constant is None:
                if command.name.startswith("_root_."):
                    what = (
                        f"constant {self.quote(name)}"
                        if command.kind == "print"
                        else f"identifier {self.quote(command.name)}"
                    )
                    where = (index.pos(command.name_start), index.pos(command.name_end))
                    messages.append(self._message("error", *where, f"unknown {what}"))
                continue
            if command.kind == "check":
                text = f"{name} {constant.signature}"
            elif constant.kind in ("axiom", "opaque", "inductive"):
                text = f"{constant.kind} {name} : ⋯"
            else:
                text = f"{constant.kind} {name} : ⋯ :=\n⋯"
            start = index.pos(command.start)
            messages.append(self._message("info", start, index.pos(command.start + len("#check")), text))

    def _print_strings(self, cmd: str, masked: str, index: LineIndex, messages: list[dict[str, Any]]) -> None:
        for start, text in print_strings(cmd, masked):
            messages.append(self._message("info", index.pos(start), index.pos(start + len("#print")), text))

    def _directives(self, cmd: str, messages: list[dict[str, Any]], effects: Effects) -> None:
        for d in directives(cmd):
            start = {"line": d.line, "column": d.column}
            end = {"line": d.line, "column": d.end_column}
            try:
                if d.kind in ("error", "warning", "info"):
                    messages.append(self._message(d.kind, start, end, d.argument or f"simulated {d.kind}"))
                elif d.kind == "huge":
                    messages.append(self._message("info", start, end, "x" * int(d.argument or 100_000)))
                elif d.kind == "sleep":
                    effects.sleep_s += float(d.argument)
                elif d.kind == "crash":
                    effects.crash = True
                elif d.kind == "hang":
                    effects.hang = True
                elif d.kind == "hang-child":
                    effects.hang, effects.hang_child_pidfile = True, d.argument
                elif d.kind == "garbage":
                    effects.garbage = True
                elif d.kind == "stderr":
                    effects.stderr_bytes += int(d.argument or 1 << 20)
                elif d.kind == "alloc":
                    effects.alloc_mb += float(d.argument)
                elif d.kind == "forge":
                    effects.forge = True
                elif d.kind == "forge-later":
                    effects.forge_later_s = float(d.argument or 0.5)
                else:
                    messages.append(self._message("error", start, end, f"lean-repl-sim: unknown directive {d.kind!r}"))
            except ValueError:
                messages.append(self._message("error", start, end, f"lean-repl-sim: bad argument {d.argument!r}"))

    def _recorded_messages(self, row: RecordedRow, cmd: str, body_start: int) -> list[dict[str, Any]]:
        # Recorded positions refer to the full recorded code; this command may hold fewer header lines.
        shift = cmd.count("\n", 0, body_start) - row.header_lines
        messages = [_shift(m, shift) for m in row.messages]
        if not row.verdict and not row.timed_out and not any(m.get("severity") == "error" for m in messages):
            where = {"line": max(row.statement_line + shift, 1), "column": 0}
            messages.append(self._message("error", where, where, "lean-repl-sim: this code failed in the recorded run"))
        return messages

    def _new_proof_state(self) -> int:
        self.proof_states += 1
        return self.proof_states - 1

    @staticmethod
    def _message(severity: str, pos: dict[str, int], end: dict[str, int], data: str) -> dict[str, Any]:
        return {"severity": severity, "pos": pos, "endPos": end, "data": data}


def _shift(message: dict[str, Any], lines: int) -> dict[str, Any]:
    shifted = dict(message)
    for key in ("pos", "endPos"):
        if isinstance(shifted.get(key), dict):
            shifted[key] = {**shifted[key], "line": shifted[key]["line"] + lines}
    return shifted
