"""Light-weight reading of Lean source for the REPL stand-in: comments masked, declarations, sorries, directives."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "DECL_KEYWORDS",
    "Declaration",
    "Directive",
    "LineIndex",
    "NameCommand",
    "PrintAxioms",
    "declarations",
    "directives",
    "full_name",
    "goal_of",
    "mask",
    "name_commands",
    "namespaces_at",
    "print_axioms_commands",
    "print_strings",
    "render_signature",
    "sorry_offsets",
    "split_imports",
    "unescape",
    "uses_tactics",
    "without_print_axioms",
]

DECL_KEYWORDS = (
    "theorem",
    "lemma",
    "def",
    "abbrev",
    "instance",
    "example",
    "structure",
    "inductive",
    "class",
    "opaque",
    "axiom",
)
_DECL = re.compile(r"(?<![\w.'])(" + "|".join(DECL_KEYWORDS) + r")(?![\w'!?])")
_NAME = re.compile(r"\s+((?:«[^»]*»|[^\s:(\[{⦃«])+)")
_SORRY = re.compile(r"(?<![\w.'])sorry(?![\w'!?])")
_BY = re.compile(r"(?<![\w.'])by(?![\w'!?])")
_PRINT_AXIOMS = re.compile(r"#print\s+axioms\s+((?:«[^»]*»|[^\s«»])+)")
# `#print NAME` and `#check NAME` (the name as written), and `#print "..."` (its string, read from the source).
_PRINT_NAME = re.compile(r"#print\s+(?!axioms\b)((?:«[^»]*»|[^\s«»\"])+)")
_CHECK = re.compile(r"#check\s+((?:«[^»]*»|[^\s«»])+)")
_PRINT_STRING = re.compile(r'#print\s+"')
_SCOPE = re.compile(r"(?<![\w.'])(namespace|section|end|mutual)(?![\w'!?])[ \t]*((?:«[^»]*»|[^\s«»])*)")
_NEEDLESS_SPACE = re.compile(r"(?<![\w'!?.]) | (?![\w'!?.«])")
_WORD = re.compile(r"(?:«[^»]*»|[A-Za-z_\u0370-\u03ff\u1f00-\u1ffe\u2100-\u214f])(?:«[^»]*»|[\w'!?.₀-₉])*")
_IMPORT = re.compile(r"import\s+(\S+)")
_DIRECTIVE = re.compile(r"--\s*sim:\s*([A-Za-z-]+)[ \t]*(.*?)\s*$")
_OPEN = "([{⦃"
_CLOSE = ")]}⦄"


_RAW = re.compile(r'r(#*)"')
_NAME_CHAR = re.compile(r"[\w.'!?]")


def mask(code: str) -> str:
    """`code` with comments and string literals blanked out (same length, newlines kept)."""
    out = list(code)

    def blank(start: int, end: int) -> None:
        for j in range(start, min(end, n)):
            if out[j] != "\n":
                out[j] = " "

    i, n, depth = 0, len(code), 0
    while i < n:
        if depth:
            step = 2 if code.startswith(("/-", "-/"), i) else 1
            depth += 1 if code.startswith("/-", i) else -1 if code.startswith("-/", i) else 0
            blank(i, i + step)
            i += step
        elif code.startswith("/-", i):
            # Lean reads the third character (a doc comment's `-`/`!`, or one `whitespace` steps over) before it
            # scans for nested openers and closers: `/-/-/` is a whole comment.
            depth = 1
            blank(i, i + 3)
            i += 3
        elif code[i] == "r" and (raw := _RAW.match(code, i)) and not (i and _NAME_CHAR.match(code[i - 1])):
            # A raw string `r#"..."#` (at a token start): no escapes, closed by `"` and as many `#`.
            close = code.find('"' + raw.group(1), raw.end())
            blank(raw.end(), n if close < 0 else close)
            i = n if close < 0 else close + 1 + len(raw.group(1))
        elif code.startswith("--", i):
            end = code.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif code[i] == '"':
            i += 1
            while i < n and code[i] != '"':
                step = 2 if code[i] == "\\" else 1
                blank(i, i + step)
                i += step
            i += 1
        else:
            i += 1
    return "".join(out)


class LineIndex:
    """Converts character offsets into Lean positions: 1-based lines, 0-based columns in characters."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def pos(self, offset: int) -> dict[str, int]:
        """The `{"line", "column"}` object for a character offset."""
        lo, hi = 0, len(self._starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return {"line": lo + 1, "column": offset - self._starts[lo]}


@dataclass(frozen=True, slots=True)
class Declaration:
    """One declaration: where its keyword and name are, and the text of its signature."""

    keyword: str
    name: str | None
    start: int
    end: int
    name_start: int
    name_end: int
    signature: str


@dataclass(frozen=True, slots=True)
class Directive:
    """A `-- sim: <kind> <argument>` comment and the line it is on (1-based)."""

    kind: str
    argument: str
    line: int
    column: int
    end_column: int


@dataclass(frozen=True, slots=True)
class PrintAxioms:
    """A `#print axioms NAME` command: the offsets of its `#print` token and of the name as written."""

    name: str
    start: int
    name_start: int
    name_end: int


def split_imports(code: str) -> tuple[list[tuple[str, int]], int]:
    """The leading `import` lines of `code` as (module, offset), and the offset where the rest begins.

    Only the start of the code is read (whitespace, comments and imports), so this is cheap on long code.
    """
    imports: list[tuple[str, int]] = []
    i, n = 0, len(code)
    while True:
        while i < n and code[i].isspace():
            i += 1
        if code.startswith("--", i):
            end = code.find("\n", i)
            i = n if end < 0 else end
        elif code.startswith("/-", i):
            i = _block_comment_end(code, i)
        elif match := _IMPORT.match(code, i):
            imports.append((match.group(1), match.start()))
            i = match.end()
        else:
            return imports, i


def _block_comment_end(code: str, start: int) -> int:
    depth, i = 1, start + 3  # the third character never opens or closes anything (see `mask`)
    while i < len(code):
        if code.startswith("/-", i):
            depth, i = depth + 1, i + 2
        elif code.startswith("-/", i):
            depth, i = depth - 1, i + 2
            if depth == 0:
                return i
        else:
            i += 1
    return i


def declarations(masked: str) -> list[Declaration]:
    """Declarations found in comment-free text, each spanning up to the next one."""
    found = list(_DECL.finditer(masked))
    decls: list[Declaration] = []
    for k, match in enumerate(found):
        end = found[k + 1].start() if k + 1 < len(found) else len(masked)
        keyword = match.group(1)
        name, name_start, name_end = None, match.start(), match.end()
        rest_start = match.end()
        if keyword != "example":
            name_match = _NAME.match(masked, match.end(), end)
            if name_match and not name_match.group(1).startswith(":="):
                name, name_start, name_end = name_match.group(1), name_match.start(1), name_match.end(1)
                rest_start = name_end
        body = masked.find(":=", rest_start, end)
        signature = masked[rest_start : body if body >= 0 else end]
        decls.append(Declaration(keyword, name, match.start(), end, name_start, name_end, signature))
    return decls


@dataclass(frozen=True, slots=True)
class NameCommand:
    """A `#print NAME` or `#check NAME` command: which, the name as written, and offsets of the command and name."""

    kind: str
    name: str
    start: int
    name_start: int
    name_end: int


def name_commands(masked: str) -> list[NameCommand]:
    """Every `#print NAME` (not `#print axioms`) and `#check NAME` outside comments and strings."""
    found = [NameCommand("print", m.group(1), m.start(), m.start(1), m.end(1)) for m in _PRINT_NAME.finditer(masked)]
    found += [NameCommand("check", m.group(1), m.start(), m.start(1), m.end(1)) for m in _CHECK.finditer(masked)]
    return sorted(found, key=lambda c: c.start)


def print_strings(code: str, masked: str) -> list[tuple[int, str]]:
    """Every `#print "..."` as (offset of `#print`, the string), escapes aside."""
    found = []
    for m in _PRINT_STRING.finditer(masked):
        end = code.find('"', m.end())
        if end >= 0:
            found.append((m.start(), code[m.end() : end]))
    return found


def namespaces_at(masked: str, offsets: list[int]) -> list[str]:
    """The namespace each offset is in, from `namespace`/`section`/`end` (one scope per name component)."""
    events = [(m.start(), m.group(1), unescape(m.group(2))) for m in _SCOPE.finditer(masked)]
    stack: list[tuple[str, str]] = []
    result = []
    k = 0
    for offset in offsets:
        while k < len(events) and events[k][0] < offset:
            _, word, name = events[k]
            parts = name.split(".") if name else [""]
            if word == "end":
                del stack[len(stack) - (1 if stack and stack[-1][0] == "mutual" else len(parts)) :]
            else:
                stack.extend((word, part) for part in parts)
            k += 1
        result.append(".".join(part for word, part in stack if word == "namespace" and part))
    return result


_VARIABLE = re.compile(r"(?<![\w.'])variable\??(?![\w'!?])((?:[ \t]*[(\[{⦃][^()\[\]{}⦃⦄\n]*[)\]}⦄])+)")
_INCLUDE = re.compile(r"(?<![\w.'])include(?![\w'!?])((?:[ \t]+[^\s()]+)+)")
_BINDER_GROUP = re.compile(r"[(\[{⦃]([^()\[\]{}⦃⦄]*)[)\]}⦄]")


def included_binders(masked: str, before: int) -> list[str]:
    """The binder groups of the `variable`s that a theorem at offset `before` includes.

    Those named by an `include` before it, and every instance-implicit one (Lean v4.10+ includes those whose
    dependencies are included).

    One line per `variable` command, no nested brackets, no section scoping: enough for the attacks the static rules
    also refuse (`variable (cheat : False)` + `include cheat`, `variable? [cheat : Fact False]`).
    """
    groups: list[tuple[str, list[str]]] = []
    for m in _VARIABLE.finditer(masked, 0, before):
        for g in _BINDER_GROUP.finditer(m.group(1)):
            names = g.group(1).partition(":")[0].split()
            groups.append((g.group(), names))
    included = {n for m in _INCLUDE.finditer(masked, 0, before) for n in m.group(1).split()}
    return [text for text, names in groups if text.startswith("[") or included & set(names)]


def full_name(written: str, namespace: str) -> str:
    """The full name of a declaration written `written` inside `namespace` (`_root_.` escapes the namespace)."""
    written = unescape(written)
    if written.startswith("_root_."):
        return written.removeprefix("_root_.")
    return f"{namespace}.{written}" if namespace else written


def render_signature(signature: str, resolve: Callable[[str], str]) -> str:
    """A signature on one line, spaced canonically, with each name replaced by what `resolve` makes of it.

    As Lean's printer does, it does not depend on how the source was spaced: a space stays only between two
    name or number characters (`(x:ℝ)` and `( x : ℝ )` both print `(x:ℝ)`).
    """
    resolved = " ".join(_WORD.sub(lambda m: resolve(unescape(m.group())), _one_binder_a_name(signature)).split())
    return _NEEDLESS_SPACE.sub("", resolved)


def _one_binder_a_name(signature: str) -> str:
    """`signature` with each binder group of several names written one binder a name: `(x y : ℝ)` as `(x : ℝ) (y : ℝ)`.

    Lean's printer prints both spellings alike, and `∀ n m : ℕ, P` as `∀ (n m : ℕ), P`. An approximation by regular
    expressions: a type with brackets nested twice or a binder head keeps its group as written, and a term ascribed
    names alone (`(f x : ℤ)`) is split too (kimina-format's normaliser, which the static check runs first, is
    exact there).
    """
    signature = _BARE_BINDERS.sub(
        lambda m: m[1] + " " + " ".join(f"({name} : {m[3]})" for name in m[2].split()) + ",", signature
    )
    return _NAMES_GROUP.sub(
        lambda m: " ".join(f"{m[1]}{name} : {m[3]}{_CLOSER[m[1]]}" for name in m[2].split()), signature
    )


_BINDER_NAME = r"(?!fun\b)[^\W\d][\w'!?₀-₉]*"
# A binder head in a type may take the comma as its own (`∀ a : ∀ b : P, Q, R`): such a run stays as written.
_BINDER_TYPE = r"(?:[^(){}⦃⦄,∀∃λ]|\([^(){}⦃⦄∀∃λ]*\))+?"
_NAMES_GROUP = re.compile(rf"([({{⦃])\s*((?:{_BINDER_NAME}\s+)+{_BINDER_NAME})\s*:\s*({_BINDER_TYPE})\s*[)}}⦄]")
_BARE_BINDERS = re.compile(rf"([∀∃])\s*((?:{_BINDER_NAME}\s+)*{_BINDER_NAME})\s*:\s*({_BINDER_TYPE})\s*,")
_CLOSER = {"(": ")", "{": "}", "⦃": "⦄"}


def sorry_offsets(masked: str) -> list[int]:
    """Offsets of every `sorry` token outside comments and strings."""
    return [m.start() for m in _SORRY.finditer(masked)]


def unescape(name: str) -> str:
    """A Lean name with its «» escapes removed, so `«a».b` and `a.b` compare equal."""
    return name.replace("«", "").replace("»", "")


def uses_tactics(masked: str, decl: Declaration) -> bool:
    """Whether the declaration's value contains a `by` block."""
    value = masked.find(":=", decl.name_end, decl.end)
    return value >= 0 and _BY.search(masked, value, decl.end) is not None


def print_axioms_commands(masked: str) -> list[PrintAxioms]:
    """Every `#print axioms NAME` command outside comments and strings."""
    return [PrintAxioms(m.group(1), m.start(), m.start(1), m.end(1)) for m in _PRINT_AXIOMS.finditer(masked)]


def without_print_axioms(code: str) -> str:
    """`code` with its `#print axioms` commands removed (so appended checks do not change a recorded row's key)."""
    commands = print_axioms_commands(mask(code))
    for command in reversed(commands):
        code = code[: command.start] + code[command.name_end :]
    return code


def directives(code: str) -> list[Directive]:
    """Every `-- sim:` directive comment in `code`."""
    found = []
    for number, line in enumerate(code.split("\n"), start=1):
        match = _DIRECTIVE.search(line)
        if match:
            found.append(Directive(match.group(1).lower(), match.group(2), number, match.start(), len(line)))
    return found


def goal_of(signature: str) -> str:
    """An approximate goal for a declaration: its binders as hypotheses, then `⊢ type`."""
    depth, colon = 0, -1
    for i, ch in enumerate(signature):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif ch == ":" and depth == 0:
            colon = i
            break
    binders, target = (signature[:colon], signature[colon + 1 :]) if colon >= 0 else (signature, "")
    hypotheses = []
    for group in _binder_groups(binders):
        names, sep, kind = group.partition(":")
        hypotheses.append(f"{_squash(names)} : {_squash(kind)}" if sep else f"inst✝ : {_squash(names)}")
    return "\n".join([*hypotheses, f"⊢ {_squash(target) or '?_'}"])


def _binder_groups(text: str) -> list[str]:
    groups, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0:
                groups.append(text[start:i])
    return groups


def _squash(text: str) -> str:
    return " ".join(text.split())
