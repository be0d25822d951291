"""Rule 7: does the final code state the given theorem unchanged (`final_statement_matches`, and the older text key)?"""

from __future__ import annotations

import re
from functools import lru_cache

from kimina_format.lean_source import LeanParts, normalise_lean, split_lean
from kimina_format.lean_statement import statement_preserved
from kimina_format.lean_statement_fast import plain_match, plain_statement

__all__ = ["final_statement_matches", "statement_key", "statement_matches"]

_PROOF_WORDS = ("by", "sorry")
LEXER_MAX_CHARS = 100_000
"""Final code longer than this is not lexed by the statement rule (real final proofs reach 24,000 characters)."""
LEXER_MAX_DECLARATIONS = 256
"""Final code with more declarations than this is not lexed by the statement rule (real ones have one)."""
_NAME_CHAR = re.compile(r"[\w'.?!]")


@lru_cache(maxsize=4096)
def statement_key(formal_statement: str) -> tuple[str, bool] | None:
    """The normalised declarations of a formal statement, and whether there is just one (None if there is none).

    The header (`import`, `open`, ...) and the `by sorry` tail are dropped and the text ends in `:=`. Everything from
    the first declaration on is kept, so a `def` the theorem relies on must stay unchanged too. Cached, because RL
    checks many completions of each statement.
    """
    parts = split_lean(formal_statement)
    if not parts.statements:
        return None
    key = _without_trailing_proof(normalise_lean(parts.code[parts.declarations_start :]))
    if not key.endswith(":="):
        key = normalise_lean(key + " :=")
    return key, len(parts.statements) == 1


def statement_matches(final: LeanParts, formal_statement: str) -> bool:
    """Whether the final code contains the formal statement's declarations unchanged (comments and spacing aside).

    Declarations the model adds before it (helper lemmas) are allowed, and so are attributes and modifiers in front
    of it; `lemma` and `theorem` are interchangeable. A statement with nothing to match (no declaration) matches.

    Args:
        final: The final code, split (see `split_lean`).
        formal_statement: The statement the model was given, header and `sorry` included or not.
    """
    found = statement_key(formal_statement)
    if found is None:
        return True
    key, single = found
    if single and any(_ends_with(normalise_lean(signature), key) for signature in final.statements):
        return True  # the common case, checked on the short signatures only
    code = normalise_lean(final.code)
    start = code.find(key)
    while start != -1 and not _starts_name(code, start):
        start = code.find(key, start + 1)
    return start != -1


def final_statement_matches(final: LeanParts, formal_statement: str) -> bool:
    """Rule 7's verdict: `lean_statement.statement_preserved` on the final code, the normaliser kimina-verify uses.

    The code's comments are already blanked in `final`, so the plain-code shortcut costs no second scan. A statement
    that declares no theorem has nothing to match, and matches. Code the shortcut cannot decide goes to the lexer,
    unless it is of hostile size (over `LEXER_MAX_CHARS` characters or `LEXER_MAX_DECLARATIONS` declarations, far
    beyond real proofs): it is then not shown to keep the statement, and fails, in linear time.

    Args:
        final: The final code, split (see `split_lean`).
        formal_statement: The statement the model was given, header and `sorry` included or not.
    """
    plain = plain_statement(formal_statement)
    if plain is not None and plain_match(final.source, final.code, plain):
        return True
    if len(final.source) > LEXER_MAX_CHARS or len(final.statements) > LEXER_MAX_DECLARATIONS:
        return False
    return statement_preserved(final.source, formal_statement) is not False


def _without_trailing_proof(text: str) -> str:
    """`text` without the `by` and `sorry` words (and the whitespace after them) at its end; whole words only."""
    end = len(text)  # what is kept: text[:end]
    while True:
        stop = end
        while stop and text[stop - 1].isspace():
            stop -= 1
        for word in _PROOF_WORDS:
            if text.endswith(word, 0, stop) and _starts_name(text, stop - len(word)):
                end = stop - len(word)
                break
        else:
            return text[:end]


def _ends_with(signature: str, key: str) -> bool:
    return signature.endswith(key) and _starts_name(signature, len(signature) - len(key))


def _starts_name(text: str, index: int) -> bool:
    """Whether `index` is not inside a longer name (`my_theorem foo` holds `theorem foo` at a non-start)."""
    return index == 0 or _NAME_CHAR.match(text, index - 1) is None
