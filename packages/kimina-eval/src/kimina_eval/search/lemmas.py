"""Candidate lemmas: find `lemma`/`theorem` declarations in a model's text and split them into binders and conclusion.

Parsing works on kimina-verify's Lean tokens, so comments and string literals never confuse it. Two lemmas are the
same when their statements (binders, colon and type, name excluded) are equal token for token.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from kimina_format import parse_completion
from kimina_format.lean_lexer import Token
from kimina_verify import LeanCode
from kimina_verify.code import THEOREM_KEYWORDS

__all__ = ["Binder", "BinderKind", "Lemma", "lemmas_in_code", "parse_lemmas", "split_statement"]

BinderKind = Literal["explicit", "implicit", "strict_implicit", "instance", "bare"]

_OPENERS = {"(": ")", "[": "]", "{": "}", "⦃": "⦄", "⟨": "⟩"}
_CLOSERS = frozenset(_OPENERS.values())
_KINDS: dict[str, BinderKind] = {"(": "explicit", "{": "implicit", "⦃": "strict_implicit", "[": "instance"}


@dataclass(frozen=True)
class Binder:
    """One binder group of a declaration, e.g. ``(x y : ℝ)`` or ``[Fintype α]``.

    Attributes:
        kind: ``explicit`` ``( )``, ``implicit`` ``{ }``, ``strict_implicit`` ``⦃ ⦄`` or ``{{ }}``, ``instance``
            ``[ ]``, or ``bare`` (an identifier without brackets).
        text: What is inside the brackets, on one line, comments removed.
    """

    kind: BinderKind
    text: str


@dataclass(frozen=True)
class Lemma:
    """A stated lemma, ready to be checked, negated, proved and reused.

    Attributes:
        name: The declared name (with its namespace, if any).
        signature: The source text between the name and ``:=`` (binders, colon, type), as the model wrote it.
        binders: The binder groups before the colon.
        conclusion: The type after the colon, on one line, comments removed.
        key: The statement normalised for de-duplication: its tokens joined by spaces, name excluded.
    """

    name: str
    signature: str
    binders: tuple[Binder, ...]
    conclusion: str
    key: str

    @property
    def statement(self) -> str:
        """The declaration without its proof, as a `theorem` (``theorem name binders : type``)."""
        return f"theorem {self.name} {self.signature}"

    def formal_statement(self, header: str = "") -> str:
        """The statement to prove, ``header + statement + ' := by'``, as a prover prompt and the verifier want it.

        The signature ends at the type's last token, so a comment after the type cannot swallow the ``:= by``.
        """
        return f"{header}{self.statement} := by"

    def renamed(self, name: str) -> Lemma:
        """The same lemma under another name."""
        return replace(self, name=name)


def parse_lemmas(completion: str) -> list[Lemma]:
    r"""The lemmas a model stated in the Lean blocks after its thinking, in order.

    Declarations that cannot be split into binders and a conclusion (e.g. explicit universe parameters) are skipped.

    Example:
        >>> [lem.name for lem in parse_lemmas("```lean4\nlemma sq_pos' (x : ℝ) (h : 0 < x) : 0 < x ^ 2 := by sorry\n```")]
        ["sq_pos'"]
    """
    parsed = parse_completion(completion)
    return [lemma for block in parsed.code_blocks if block.closed for lemma in lemmas_in_code(block.text)]


def lemmas_in_code(code: str) -> list[Lemma]:
    """Every named `lemma`/`theorem` declaration with a ``:=`` in Lean code, in order, as `Lemma` values."""
    lean = LeanCode(code)
    tokens = lean.lexed.tokens
    at = {tok.start: i for i, tok in enumerate(tokens)}
    found = []
    for decl in lean.declarations:
        if decl.keyword not in THEOREM_KEYWORDS or decl.name is None or decl.proof_start is None:
            continue
        first = at[decl.start] + 2  # after the keyword and the name
        assign = at.get(decl.proof_start - 2)  # the `:` of `:=`
        if assign is None or first > assign:
            continue
        lemma = _split(lean.text, decl.name, tokens[first - 1], tokens[first:assign])
        if lemma is not None:
            found.append(lemma)
    return found


def _split(text: str, name: str, name_token: Token, signature: Sequence[Token]) -> Lemma | None:
    """Split the signature tokens into binder groups and the conclusion; None when they are not of that shape."""
    binders: list[Binder] = []
    i = 0
    while i < len(signature):
        tok = signature[i]
        if tok.kind == "symbol" and tok.text == ":":
            conclusion = signature[i + 1 :]
            if not conclusion:
                return None
            return Lemma(
                name=name,
                signature=text[name_token.end : signature[-1].end].strip(),
                binders=tuple(binders),
                conclusion=_render(text, conclusion),
                key=" ".join(t.text for t in signature),
            )
        if tok.kind == "ident":
            binders.append(Binder("bare", tok.text))
            i += 1
            continue
        if tok.kind != "symbol" or tok.text not in _KINDS:
            return None
        end = _closing(signature, i)
        if end is None:
            return None
        inside = signature[i + 1 : end]
        kind = _KINDS[tok.text]
        # `{{ x }}` is the ASCII spelling of `⦃ x ⦄`.
        if tok.text == "{" and len(inside) >= 2 and inside[0].text == "{" and _closing(inside, 0) == len(inside) - 1:
            kind, inside = "strict_implicit", inside[1:-1]
        if not inside:
            return None
        binders.append(Binder(kind, _render(text, inside)))
        i = end + 1
    return None


def _closing(tokens: Sequence[Token], start: int) -> int | None:
    """Index of the bracket closing the one at ``start``, or None when it is never closed."""
    depth = 0
    for j in range(start, len(tokens)):
        tok = tokens[j]
        if tok.kind != "symbol":
            continue
        if tok.text in _OPENERS:
            depth += 1
        elif tok.text in _CLOSERS:
            depth -= 1
            if depth == 0:
                return j
    return None


def _render(text: str, tokens: Sequence[Token]) -> str:
    """The source of ``tokens`` on one line, comments removed.

    Tokens that touch stay together; any gap between two tokens (spaces, newlines, comments) becomes one space.
    """
    parts: list[str] = []
    previous: Token | None = None
    for tok in tokens:
        if previous is not None and tok.start > previous.end:
            parts.append(" ")
        parts.append(text[tok.start : tok.end])
        previous = tok
    return "".join(parts)


def split_statement(formal_statement: str) -> tuple[str, str]:
    """Split a dataset statement into its header (imports, options, opens; ending in a blank line) and the rest."""
    lean = LeanCode(formal_statement)
    lines = lean.lines
    count = lean.header_line_count
    header = "\n".join(lines[:count]).rstrip("\n") + "\n\n" if count else ""
    return header, "\n".join(lines[count:]).lstrip("\n")
