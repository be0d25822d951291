"""What Gemini is asked for a variant, the JSON shape it must answer in, and the checks on what comes back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kimina_data.statement import StatementError, clean_text, parse_statement

__all__ = [
    "RESPONSE_SCHEMA",
    "Candidate",
    "MalformedOutput",
    "build_prompt",
    "check_candidate",
    "parse_variants",
]

_PROMPT_VERSION = 1
"""Part of every prompt, hence of every cache key: bump it when the template changes meaning."""

_TEMPLATE = """\
You write new competition problems for training a Lean 4 theorem prover (Lean 4 with Mathlib).

Below is a problem with its Lean 4 statement. Write {n} new problem(s) that are mathematically different from it but \
related: change the numbers, the conditions or the question so that the answer or the proof changes, keeping the \
topic and a similar difficulty. Every new problem must be true and provable; when it asks for a value, state the \
value in both the problem and the statement.

For each new problem give:
- "informal_problem": the problem in natural language (LaTeX allowed);
- "formal_statement": its Lean 4 statement, one `theorem` that ends in `:= by`, with no proof and no `sorry`, and \
without `import`, `open` or `set_option` lines (it is compiled after the header below);
- "change": one sentence saying what you changed.

# Header
```lean4
{header}```

# Problem
{informal}

# Formal statement
```lean4
{statement}
```

(prompt version {version})
"""

RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "variants": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "informal_problem": {"type": "string"},
                    "formal_statement": {"type": "string"},
                    "change": {"type": "string"},
                },
                "required": ["informal_problem", "formal_statement", "change"],
            },
        }
    },
    "required": ["variants"],
}
"""JSON Schema given to Gemini as `response_json_schema`; `parse_variants` checks the answer against it again."""


class MalformedOutput(ValueError):
    """The model's answer is not JSON in the shape of `RESPONSE_SCHEMA`."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One variant as the model wrote it, before any check."""

    informal_problem: str
    formal_statement: str
    change: str


def build_prompt(header: str, statement: str, informal: str, n: int) -> str:
    """The prompt asking for `n` variants of one normalised problem."""
    return _TEMPLATE.format(n=n, header=header, informal=informal, statement=statement, version=_PROMPT_VERSION)


def parse_variants(text: str | None) -> list[Candidate]:
    """Read the model's JSON answer into candidates.

    Raises:
        MalformedOutput: The answer is empty, not JSON, or not in the shape of `RESPONSE_SCHEMA`.
    """
    if not text or not text.strip():
        raise MalformedOutput("empty answer")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise MalformedOutput(f"not JSON ({e.msg} at line {e.lineno})") from None
    items = data.get("variants") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise MalformedOutput('no "variants" list')
    candidates = []
    for i, item in enumerate(items):
        fields = {k: item.get(k) if isinstance(item, dict) else None for k in ("informal_problem", "formal_statement")}
        if not all(isinstance(v, str) for v in fields.values()):
            raise MalformedOutput(f"variant {i} lacks a string informal_problem or formal_statement")
        change = item.get("change") if isinstance(item, dict) else None
        candidates.append(
            Candidate(clean_text(fields["informal_problem"] or ""), fields["formal_statement"] or "", str(change or ""))
        )
    return candidates


def check_candidate(candidate: Candidate, *, header: str) -> tuple[str, str]:
    """Return the variant's (header, statement) in normal form.

    The header is the origin's `header`, plus any `open` or `set_option` line the model put before its statement
    (its imports are ignored: the origin's imports are the environment the variant is checked in).

    Raises:
        StatementError: The statement is unusable (reasons as in `parse_statement`), or `empty_informal`.
    """
    if not candidate.informal_problem:
        raise StatementError("empty_informal", "the variant has no informal problem")
    parsed = parse_statement(candidate.formal_statement, default_header="")
    known = set(header.splitlines())
    extra = [
        line for line in parsed.header.splitlines() if line and not line.startswith("import") and line not in known
    ]
    return (header.rstrip("\n") + "\n" + "\n".join(extra) + "\n\n" if extra else header), parsed.body
