"""Integrity rules on names and scopes: a token-identical statement must mean what the dataset's means.

Inside `namespace Hack`, `def Real.log := 0` followed by the exact statement makes the statement read `Hack.Real.log`;
an `open` of the code's own namespace before the theorem, `export`, `_root_.` or a type whose constructors carry a
statement's name do the same. These rules refuse each way to make a name of the statement resolve to something the code declares, and the
scopes Lean would close differently (`end`) or leave open. The checks in Lean (`lean_checks`) compare the elaborated
types themselves; these rules catch the same attacks without Lean, and with a server that cannot run those checks.
"""

from __future__ import annotations

from collections.abc import Sequence

from kimina_format.lean_decls import Declaration

from kimina_verify.code import LeanCode
from kimina_verify.policy import IntegrityViolation, violation

__all__ = ["meaning_violations", "scope_violations"]

_BINDER_KEYWORDS = frozenset({"∀", "∃", "∃!", "λ", "fun", "Σ", "∑", "∏", "⋃", "⋂", "∫", "⨆", "⨅", "let"})
_BINDER_STOPS = frozenset({",", ":", "∈", "=", ">", "<", "≤", "≥", "↦", "|", "in", "∉", "⊆"})
_OPEN_BRACKETS = {"(": ")", "{": "}", "[": "]", "⦃": "⦄", "⟨": "⟩"}
_TYPE_KEYWORDS = frozenset({"inductive", "structure", "class"})


def scope_violations(lean: LeanCode) -> list[tuple[int, IntegrityViolation]]:
    """`end` that Lean reads otherwise, scopes left open, and declarations written with `_root_.`."""
    found = [violation(lean.text, p.offset, p.code, p.message) for p in lean.outline.problems]
    for decl in lean.declarations:
        written = decl.written_name or ""
        if "_root_" in written.split("."):
            message = f"`{written}` declares `{decl.name}` outside the namespace `{decl.namespace}` it is written in"
            found.append(violation(lean.text, decl.start, "root_namespace", message))
    return found


def meaning_violations(
    lean: LeanCode, statement: LeanCode, target: Declaration
) -> list[tuple[int, IntegrityViolation]]:
    """Opens before the target that can bring the code's own names in, and declarations a statement name can mean.

    An `open` of a namespace the code declares into (`open Hack` after `def Hack.Real.log`), or one with `hiding`,
    `renaming`, `scoped` or a name list, before the target is refused. Opening other namespaces (Mathlib's) can only
    choose between Mathlib's own constants; the checks in Lean catch a statement that then means something else.

    Args:
        lean: The code.
        statement: The dataset statement.
        target: The code's declaration of the statement's theorem.
    """
    found: list[tuple[int, IntegrityViolation]] = []
    own = _own_namespaces(lean)
    opened = {ns for command in statement.outline.opens for ns in command.namespaces}
    # The statement's own opens (`open ... Nat Real`) are in `opened` below, so a code declaration a statement name can
    # reach through them (`Nat.<name>`) is `shadowing`; a helper `lemma Nat.x` or `namespace Real ... end Real` is not.
    statement_opens = frozenset(opened)
    for command in lean.outline.opens:
        if command.start >= target.command_start:
            break
        mine = [ns for ns in command.namespaces if ns in own and ns not in statement_opens]
        if not command.plain or mine:
            what = f"`open {' '.join(mine)}`" if mine else "`open` with `hiding`, `renaming`, `scoped` or a list"
            message = f"{what} before the theorem can make the statement's names mean the code's own declarations"
            found.append(violation(lean.text, command.start, "open", message))
        opened.update(command.namespaces)
    expected = statement.target(target.name)
    names = _free_names(expected.statement if expected is not None else target.statement)
    # `theorem Hack.target` elaborates inside `namespace Hack` (`expandDeclNamespace?`): its names resolve there too.
    written = (target.written_name or "").removeprefix("_root_.").rpartition(".")[0]
    namespace = ".".join(filter(None, [target.namespace, written]))
    candidates = _resolutions(names, namespace, opened)
    for decl in lean.declarations:
        if decl is target or decl.name is None or statement.find(decl.name) is not None:
            continue
        hit = decl.name in candidates or (
            decl.keyword in _TYPE_KEYWORDS and any(c.startswith(decl.name + ".") for c in candidates)
        )
        if hit:
            message = f"`{decl.name}` can be what a name of the statement refers to: rename it"
            found.append(violation(lean.text, decl.start, "shadowing", message))
    return found


def _own_namespaces(lean: LeanCode) -> set[str]:
    """Namespaces holding a declaration of the code (every prefix of its full names, and its types)."""
    found: set[str] = set()
    for decl in lean.declarations:
        if decl.name is None:
            continue
        parts = decl.name.split(".")
        found.update(".".join(parts[:k]) for k in range(1, len(parts)))
        if decl.keyword in _TYPE_KEYWORDS:
            found.add(decl.name)
    return found


def _resolutions(names: set[str], namespace: str, opened: set[str]) -> set[str]:
    """Every full name Lean may resolve each of `names` to, written in `namespace` with `opened` namespaces."""
    prefixes = {""} | opened
    parts = namespace.split(".") if namespace else []
    prefixes |= {".".join(parts[:k]) for k in range(1, len(parts) + 1)}
    return {f"{p}.{name}" if p else name for name in names for p in prefixes}


def _free_names(statement: Sequence[str]) -> set[str]:
    """The identifiers of a statement that are not bound in it (binder names, `∀ x`, `fun x`, `{x | ...}`).

    A heuristic on tokens: a bound name shadows every global one, so leaving one out only costs a missed warning for
    a harmless name, while the checks in Lean catch any real change of meaning. A bracket binds its names only where a
    binder stands: in the signature before its type (`(x : ℕ)` at depth 0), right after a binder word and its other
    binders (`∀ x (y : ℕ),`), and `{x | p}`, `{x : T // p}`, `⦃x⦄`. Elsewhere `(f x : ℕ)` is a type ascription: `f`
    stays free (and, with `autoImplicit`, may be auto-bound; a code declaration named `f` then changes it).
    """
    bound: set[str] = set()
    tokens = list(statement)
    depths: list[int] = []
    depth = 0
    closers = set(_OPEN_BRACKETS.values())
    for text in tokens:
        if text in closers:
            depth = max(0, depth - 1)
        depths.append(depth)
        if text in _OPEN_BRACKETS:
            depth += 1
    colon = next((i for i, t in enumerate(tokens) if t == ":" and depths[i] == 0), len(tokens))
    chain: int | None = None  # the depth at which a binder word's binders are being read
    for i, text in enumerate(tokens):
        d = depths[i]
        if text in _OPEN_BRACKETS:
            if (d == 0 and i < colon) or chain == d or text in ("{", "⦃"):
                bound.update(_bracket_binders(tokens, i + 1))
        elif text in _BINDER_KEYWORDS:
            chain = d
        elif chain == d and text not in closers:
            if _is_name(text) and "." not in text:
                bound.add(text)
            else:
                chain = None
    names = {t.removeprefix("_root_.") for t in tokens if _is_name(t)}
    return names - bound


def _bracket_binders(tokens: list[str], start: int) -> list[str]:
    """`x y` of `(x y : T)`, `{x : T | ...}` or `{x | ...}` (names up to a `:` or `|`), else nothing."""
    names: list[str] = []
    for text in tokens[start:]:
        if text in (":", "|"):
            return names
        if not _is_name(text) or "." in text:
            return []
        names.append(text)
    return []


def _is_name(text: str) -> bool:
    return (text[:1].isalpha() or text[:1] in "_«") and text not in ("fun", "λ", "let", "in", "if", "then", "else")
