"""The one statement normaliser: find the theorem a dataset statement asks for in Lean code, and compare the two.

Statements compare token for token on `lean_lexer` tokens (comments, whitespace and `«»` escapes ignored, `lemma`
and `theorem` alike), and the theorem is found by its full name (`lean_decls`), never by a `have` or a name that
merely looks like a keyword. The statement's other declarations (definitions it relies on) must be in the code
unchanged, bodies included.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from kimina_format.lean_decls import THEOREM_KEYWORDS, Declaration, Outline, outline
from kimina_format.lean_lexer import Lexed, lex
from kimina_format.lean_source import strip_comments
from kimina_format.lean_statement_fast import is_plain, plain_match, plain_statement, plain_tokens

__all__ = [
    "LeanText",
    "StatementCode",
    "StatementMatch",
    "StatementProblem",
    "match_statement",
    "statement_fingerprint",
    "statement_preserved",
]

StatementCode = Literal["statement_missing", "statement_mismatch", "statement_unparsable", "statement_duplicate"]

_CONTEXT_WORDS = frozenset({"instance", "default_instance", "variable", "include"})


@dataclass(frozen=True)
class LeanText:
    """Lean source with its tokens and outline, computed once (`LeanText.of` shares them between callers)."""

    text: str
    lexed: Lexed
    outline: Outline

    @staticmethod
    @functools.lru_cache(maxsize=4096)
    def of(text: str) -> LeanText:
        """The `LeanText` of `text`, cached: dataset statements repeat across many proofs."""
        lexed = lex(text)
        return LeanText(text, lexed, outline(text, lexed))

    @property
    def declarations(self) -> tuple[Declaration, ...]:
        """Top-level declarations, in order."""
        return self.outline.declarations

    def target(self, name: str | None = None) -> Declaration | None:
        """The theorem to verify: the one called `name`, else the last `theorem`/`lemma`, else the last `example`."""
        if name is not None:
            return self.outline.find(name)
        theorems = [d for d in self.declarations if d.keyword in THEOREM_KEYWORDS]
        if theorems:
            return theorems[-1]
        examples = [d for d in self.declarations if d.keyword == "example"]
        return examples[-1] if examples else None

    @property
    def has_context(self) -> bool:
        """Whether instances or variables come before the target theorem (a statement that brings its own context)."""
        target = self.target()
        return target is not None and any(
            t.kind == "ident" and not t.escaped and t.text.rstrip("?!") in _CONTEXT_WORDS and t.start < target.start
            for t in self.lexed.tokens
        )


@dataclass(frozen=True)
class StatementProblem:
    """How code fails to state the dataset's theorem: a stable code, an offset and line in the code, a message.

    A problem about something missing has offset 0 and line None.
    """

    code: StatementCode
    offset: int
    message: str
    line: int | None = None


@dataclass(frozen=True)
class StatementMatch:
    """The result of `match_statement`: the target found in the code (if any), the dataset's, and the problems."""

    target: Declaration | None
    expected: Declaration | None
    problems: tuple[StatementProblem, ...]


def match_statement(code: LeanText, statement: LeanText, theorem: str | None = None) -> StatementMatch:
    """Find the statement's theorem in `code` by full name and compare it, and the statement's other declarations.

    Args:
        code: The code (`LeanText.of(code)`).
        statement: The dataset statement (`LeanText.of(formal_statement)`), header included or not.
        theorem: The theorem's name, when the statement declares several.

    Returns:
        The target (None when missing), the statement's declaration, and every problem in source order.
    """
    expected = statement.target(theorem)
    if expected is None:
        problem = StatementProblem("statement_unparsable", 0, "the formal statement declares no theorem")
        return StatementMatch(None, None, (problem,))
    if expected.name is None:
        same = [
            d
            for d in code.declarations
            if d.keyword == "example" and d.compared == expected.compared and not d.statement_unsure
        ]
        if same:
            return StatementMatch(same[0], expected, ())
        message = "no `example` with the formal statement's statement"
        return StatementMatch(None, expected, (StatementProblem("statement_mismatch", 0, message),))
    problems = _definition_problems(code, statement, expected)
    named = [d for d in code.declarations if d.name == expected.name]
    if not named:
        message = f"theorem `{expected.name}` of the formal statement is missing (renamed or not stated)"
        return StatementMatch(None, expected, (*problems, StatementProblem("statement_missing", 0, message)))
    actual = named[0]
    for again in named[1:]:
        message = f"`{expected.name}` is declared twice: only one can be the theorem that is checked"
        problems.append(StatementProblem("statement_duplicate", again.start, message, again.line))
    difference = compare_statements(expected, actual)
    if difference is not None:
        problems.append(StatementProblem("statement_mismatch", actual.start, difference, actual.line))
    return StatementMatch(actual, expected, tuple(sorted(problems, key=lambda p: p.offset)))


def statement_preserved(code: str, formal_statement: str, theorem: str | None = None) -> bool | None:
    """Whether `code` states the formal statement's declarations unchanged: `match_statement` finds no problem.

    The one verdict on statement preservation, for the format rule and kimina-verify alike. Plain code is answered
    by `lean_statement_fast` when it can prove the match (regexes, no lexer), everything else by `match_statement`.

    Args:
        code: Lean code, such as a completion's final block.
        formal_statement: The dataset statement, header and `sorry` included or not.
        theorem: The theorem's name, when the statement declares several.

    Returns:
        True or False; None when the formal statement declares no theorem (there is nothing to compare).
    """
    if theorem is None:
        plain = plain_statement(formal_statement)
        if plain is not None and plain_match(code, strip_comments(code)[0], plain):
            return True
    match = match_statement(LeanText.of(code), LeanText.of(formal_statement), theorem)
    if match.expected is None:
        return None
    return not match.problems


def statement_fingerprint(text: str) -> str:
    """A key equal for statements that differ only in comments, layout, `lemma`/`theorem` or the theorem's name.

    The tokens of `text` as Lean reads them (`lean_lexer`, or its plain-text shortcut), joined by spaces, with the
    name after each `theorem`/`lemma` replaced by `_`: for de-duplicating datasets, where a renamed copy is a copy.
    """
    tokens = plain_tokens(text) if is_plain(text) else [t.text for t in lex(text).tokens]
    out: list[str] = []
    anonymous = False
    for token in tokens:
        if anonymous:
            out.append("_")
            anonymous = False
            continue
        if token in THEOREM_KEYWORDS:
            token, anonymous = "theorem", True
        out.append(token)
    return " ".join(out)


def _definition_problems(code: LeanText, statement: LeanText, target: Declaration) -> list[StatementProblem]:
    """The statement's other declarations (definitions it relies on) must be in the code unchanged, bodies included."""
    found: list[StatementProblem] = []
    for expected in statement.declarations:
        if expected.name is None or expected.name == target.name:
            continue
        actual = code.outline.find(expected.name)
        if actual is None:
            message = f"`{expected.name}` of the formal statement is missing (renamed or not stated)"
            found.append(StatementProblem("statement_missing", 0, message))
            continue
        if expected.keyword in THEOREM_KEYWORDS:
            problem = compare_statements(expected, actual)
        elif (actual.keyword, actual.exact) != (expected.keyword, expected.exact):
            problem = f"definition of `{actual.name}` differs from the formal statement"
        else:
            problem = None
        if problem is not None:
            found.append(StatementProblem("statement_mismatch", actual.start, problem, actual.line))
    return found


def compare_statements(expected: Declaration, actual: Declaration) -> str | None:
    """Say how `actual` differs from `expected`, or return None when they match token for token."""
    if (expected.keyword in THEOREM_KEYWORDS) != (actual.keyword in THEOREM_KEYWORDS):
        return f"`{actual.name}` is declared with `{actual.keyword}`, the formal statement uses `{expected.keyword}`"
    if expected.statement_unsure or actual.statement_unsure:
        # Fail closed: the type may end elsewhere than at the `:=` found (see `Declaration.statement_unsure`).
        return (
            f"statement of `{actual.name}` cannot be compared token for token: where its type ends needs Lean's"
            " parser (`do`, `calc` or `by` in the type, or a `let`/`have` without its `:=`)"
        )
    if expected.compared == actual.compared:
        return None
    for i, (want, got) in enumerate(zip(expected.compared, actual.compared, strict=False)):
        if want != got:
            context = " ".join(expected.compared[max(0, i - 3) : i])
            return f"statement of `{actual.name}` differs from the formal statement after `{context}`: " + (
                f"expected `{want}`, found `{got}`"
            )
    shorter = "shorter" if len(actual.compared) < len(expected.compared) else "longer"
    return f"statement of `{actual.name}` is {shorter} than the formal statement"
