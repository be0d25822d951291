"""Lean 4 theorem statements as datasets carry them: split the header, check the shape, normalise, key for de-duplication.

Pure Python on purpose: it runs once per row over ~100K rows, so it is a handful of regular expressions and one
comment scanner, not a Lean parser. The de-duplication key is the shared statement normaliser's
(`kimina_format.lean_statement`), so that rows are compared as the format rule and kimina-verify compare statements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kimina_format.lean_statement import statement_fingerprint

MAX_STATEMENT_CHARS = 20_000
"""Longer statements are rejected (`too_long`): real ones are a few hundred characters, and a prompt that size is
either broken data or an attack on the prompt length."""

DEFAULT_HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)
"""The header Kimina-Prover and DeepSeek-Prover put before every statement; given to rows that come without one."""

# A header command: an import, or an `open`/`set_option` (not their `... in` forms, which scope the declaration that
# follows and so belong to the statement).
_HEADER_LINE = re.compile(r"(import|open|set_option)\s(?!.*\bin\s*$)")
_DECLARATION = re.compile(r"(?<![\w.'])(theorem|lemma|example)(?![\w.'])")
_BY = re.compile(r":=\s*by(?![\w.'!?])")
_SORRY = re.compile(r"(?<![\w.'])sorry(?![\w.'!?])")
_BLANK_RUNS = re.compile(r"\n{3,}")
_COMMENT_OR_STRING = re.compile(r'"|--|/-')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BLOCK_MARK = re.compile(r"/-|-/")
_NOT_NEWLINE = re.compile(r"[^\n]")


class StatementError(ValueError):
    """A statement that cannot be used; `reason` is a stable code for reports, the message says why in words."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Statement:
    """A theorem statement split in two: `header` (imports, `open`, `set_option`) and `body` (ends in `:= by`).

    `header` holds imports and ends in a blank line, so `header + body` is the text a prover is shown.
    """

    header: str
    body: str

    @property
    def text(self) -> str:
        """Header and body as one Lean file prefix, ready for a proof after `:= by`."""
        return self.header + self.body


def blank_comments(code: str) -> str:
    """Return `code` with comments (`--`, nested `/- -/`, doc comments) replaced by spaces, newlines kept.

    Positions in the result match positions in `code`, so a match found in the blanked text can be cut from the
    original. String literals are skipped so that `"--"` inside one is not taken for a comment.
    """
    if "-" not in code:
        return code
    parts: list[str] = []
    pos, n = 0, len(code)
    while found := _COMMENT_OR_STRING.search(code, pos):
        start = found.start()
        if found.group() == '"':
            literal = _STRING.match(code, start)
            end = literal.end() if literal else n
            parts.append(code[pos:end])
        else:
            if found.group() == "--":
                end = code.find("\n", start)
                end = n if end < 0 else end
            else:
                depth, end = 1, start + 2
                while depth and (mark := _BLOCK_MARK.search(code, end)):
                    depth, end = depth + (1 if mark.group() == "/-" else -1), mark.end()
                end = end if depth == 0 else n
            parts.append(code[pos:start])
            parts.append(_NOT_NEWLINE.sub(" ", code[start:end]))
        pos = end
    parts.append(code[pos:])
    return "".join(parts)


def clean_text(text: str) -> str:
    """Normalise layout only: no BOM, Unix line ends, no trailing spaces, at most one blank line in a row, stripped."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip()


def _header_length(code: str, blanked: str) -> tuple[int, bool]:
    """Length of the leading header in `code` (`blanked` is the same text with comments blanked), and if it imports.

    The header ends with its last command line. Comments before and between commands belong to it; comments after
    the last one describe the declaration below, so they start the body, as does a doc comment.
    """
    pos = end = 0
    has_import = False
    for line, line_blanked in zip(code.split("\n"), blanked.split("\n"), strict=True):
        stripped = line_blanked.strip()
        if line.lstrip().startswith("/--"):
            break
        if stripped:
            command = _HEADER_LINE.match(stripped)
            if command is None:
                break
            has_import = has_import or command.group(1) == "import"
            end = pos + len(line) + 1
        pos += len(line) + 1
    return min(end, len(code)), has_import


def parse_statement(text: str | None, *, default_header: str = DEFAULT_HEADER) -> Statement:
    """Split and check a dataset statement: one or more declarations, the last one ending in `:= by`.

    A lone `sorry` after the final `:= by` is a placeholder and is dropped; anything else there is a proof. A header
    is the leading `import`, `open` and `set_option` lines with any comments before and between them; a comment
    after the last one goes with the body. A header without imports gets `default_header` in front of it.

    Raises:
        StatementError: with reason `missing_statement`, `too_long`, `no_declaration`, `no_by`, `has_proof` or
            `misplaced_sorry`.
    """
    if text is None or not text.strip():
        raise StatementError("missing_statement", "the formal statement is empty")
    if len(text) > MAX_STATEMENT_CHARS:
        raise StatementError("too_long", f"the statement has {len(text):,} characters (limit {MAX_STATEMENT_CHARS:,})")
    code = clean_text(text) + "\n"
    blanked = blank_comments(code)
    split, has_import = _header_length(code, blanked)
    header, body, body_blanked = code[:split], code[split:], blanked[split:]
    if not body_blanked.strip():
        raise StatementError("missing_statement", "the formal statement has only a header or comments")
    if not _DECLARATION.search(body_blanked):
        raise StatementError("no_declaration", "no `theorem`, `lemma` or `example` declaration")
    last_by = max(_BY.finditer(body_blanked), key=lambda m: m.start(), default=None)
    if last_by is None:
        raise StatementError("no_by", "the statement does not end in `:= by`")
    tail = body_blanked[last_by.end() :].strip()
    if tail and tail != "sorry":
        raise StatementError("has_proof", f"the statement already has a proof after `:= by`: {tail[:60]!r}")
    if _SORRY.search(blanked[: split + last_by.start()]):
        raise StatementError("misplaced_sorry", "`sorry` appears before the final `:= by`")
    header = clean_text(header)
    header = header + "\n\n" if header else ""
    return Statement(
        # Without imports there is no Mathlib: the default header goes first, the text's own commands after it.
        header=header if has_import else default_header + header,
        body=clean_text(body[: last_by.end()]),
    )


def statement_key(body: str) -> str:
    """A key that is equal for statements that differ only in comments, layout, `lemma`/`theorem` or the name.

    The shared statement normaliser's (`kimina_format.lean_statement.statement_fingerprint`): Lean's tokens, so
    a string or an escaped name is compared as Lean reads it, as the format rule and kimina-verify compare statements.
    """
    return statement_fingerprint(body)
