"""Split a snippet into its import header and body, and map REPL positions back onto the snippet's own lines.

REPLs are pooled by header: the header runs once per process and every body runs in that environment. Like the
upstream server, all `import Mathlib.*` lines fold into one `import Mathlib`, so more snippets share a REPL.
Positions in replies are shifted back so that they refer to the snippet as sent (as upstream does since PR #56).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class SplitSnippet:
    """A snippet's normalised import header, its body, and how many lines the header region took."""

    header: str
    body: str
    header_lines: int


def split_snippet(code: str) -> SplitSnippet:
    r"""Split off the leading imports; comments before or between them are dropped, blank lines after them too.

    Examples:
        >>> split_snippet("import Mathlib.Tactic\nimport Aesop\n\ntheorem t : True := trivial")
        SplitSnippet(header='import Mathlib\nimport Aesop', body='theorem t : True := trivial', header_lines=3)
    """
    lines = code.split("\n")
    imports: list[str] = []
    last_import, in_comment, region = -1, False, len(lines)
    for index, line in enumerate(lines):
        stripped = line.strip()
        if in_comment:
            in_comment = "-/" not in stripped
        elif stripped.startswith("import "):
            imports.extend(f"import {module}" for module in stripped.split("--")[0].split()[1:])
            last_import = index
        elif stripped.startswith("/-"):
            in_comment = "-/" not in stripped[2:]
        elif stripped and not stripped.startswith("--"):
            region = index
            break
    # The body starts after the last import and the blank lines that follow it; later comments stay in the body.
    count = last_import + 1
    while count < region and not lines[count].strip():
        count += 1
    has_mathlib = any(i == "import Mathlib" or i.startswith("import Mathlib.") for i in imports)
    others = dict.fromkeys(i for i in imports if not (i == "import Mathlib" or i.startswith("import Mathlib.")))
    header = "\n".join((["import Mathlib"] if has_mathlib else []) + list(others))
    return SplitSnippet(header=header, body="\n".join(lines[count:]), header_lines=count)


def shift_positions(reply: dict[str, Any], lines: int) -> dict[str, Any]:
    """A copy of a REPL reply with message and sorry positions moved down by `lines` (the header region)."""
    if not lines:
        return reply
    shifted = dict(reply)
    for key in ("messages", "sorries"):
        items = reply.get(key)
        if isinstance(items, list):
            shifted[key] = [_shift_item(item, lines) for item in items]
    return shifted


def _shift_item(item: Any, lines: int) -> Any:
    if not isinstance(item, dict):
        return item
    moved = dict(item)
    for key in ("pos", "endPos"):
        pos = item.get(key)
        if isinstance(pos, dict) and isinstance(pos.get("line"), int) and pos["line"] > 0:
            moved[key] = {**pos, "line": pos["line"] + lines}
    return moved
