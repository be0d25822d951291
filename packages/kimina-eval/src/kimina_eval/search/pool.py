"""A problem's lemma pool: every lemma proposed so far with its fate, and the proved ones as reusable Lean code.

Proved lemmas enter later attempts on the main theorem as code: they are shown in the prompt, and any the attempt
refers to without declaring it is inserted into its code block, so the final proof is checked whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from kimina_verify import LeanCode

from kimina_eval.search.lemmas import Lemma

__all__ = ["LemmaPool", "LemmaStatus", "PoolEntry", "proof_block", "used_lemmas", "with_lemmas"]


class LemmaStatus(StrEnum):
    """Where a lemma stands.

    ``proposed``: parsed, not yet checked. ``rejected``: its statement does not elaborate (with ``sorry`` as proof).
    ``refuted``: its negation was proved. ``open``: it survived the filter and is not proved yet. ``proved``: a
    proof verified. ``abandoned``: still unproved after its proving rounds.
    """

    PROPOSED = "proposed"
    REJECTED = "rejected"
    REFUTED = "refuted"
    OPEN = "open"
    PROVED = "proved"
    ABANDONED = "abandoned"


@dataclass
class PoolEntry:
    """One lemma of the pool and what happened to it.

    Attributes:
        lemma: The lemma (renamed if its name was taken).
        round: The round that proposed it.
        status: Its current status.
        evidence: Why it was rejected (Lean's first error) or refuted (the verified proof of its negation).
        proof: The verified code of its proof, as it is inserted before the main theorem.
        tries: Proving rounds spent on it.
    """

    lemma: Lemma
    round: int
    status: LemmaStatus = LemmaStatus.PROPOSED
    evidence: str | None = None
    proof: str | None = None
    tries: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready snapshot."""
        return {
            "name": self.lemma.name,
            "statement": self.lemma.statement,
            "key": self.lemma.key,
            "round": self.round,
            "status": self.status.value,
            "evidence": self.evidence,
            "proof": self.proof,
            "tries": self.tries,
        }


@dataclass
class LemmaPool:
    """The lemmas of one problem, de-duplicated by normalised statement, in order of proposal.

    Args:
        reserved: Names lemmas may not take (the main theorem's).
        theorem_key: The main theorem's normalised statement: a lemma restating it is not added.
    """

    reserved: frozenset[str] = frozenset()
    theorem_key: str = ""
    entries: dict[str, PoolEntry] = field(default_factory=dict)

    def add(self, lemmas: Iterable[Lemma], round: int, *, limit: int) -> list[tuple[Lemma, str]]:
        """Add new lemmas, at most ``limit`` of them.

        Returns:
            Each lemma with its fate: ``new`` (added, possibly renamed), ``duplicate``, ``restates_theorem`` or
            ``over_limit``.
        """
        fates: list[tuple[Lemma, str]] = []
        added = 0
        for lemma in lemmas:
            if lemma.key == self.theorem_key:
                fates.append((lemma, "restates_theorem"))
            elif lemma.key in self.entries:
                fates.append((lemma, "duplicate"))
            elif added >= limit:
                fates.append((lemma, "over_limit"))
            else:
                lemma = lemma.renamed(self._free_name(lemma.name))
                self.entries[lemma.key] = PoolEntry(lemma, round)
                fates.append((lemma, "new"))
                added += 1
        return fates

    def _free_name(self, name: str) -> str:
        """``name``, or ``name_2``, ``name_3``... when another lemma or the main theorem has it."""
        taken = self.reserved | {e.lemma.name for e in self.entries.values()}
        candidate, suffix = name, 2
        while candidate in taken:
            candidate, suffix = f"{name}_{suffix}", suffix + 1
        return candidate

    def with_status(self, *statuses: LemmaStatus) -> list[PoolEntry]:
        """The entries with one of these statuses, in order of proposal."""
        return [e for e in self.entries.values() if e.status in statuses]

    @property
    def proved(self) -> list[PoolEntry]:
        """The proved lemmas, in order of proposal."""
        return self.with_status(LemmaStatus.PROVED)

    def snapshot(self) -> list[dict[str, Any]]:
        """Every entry as a JSON-ready dict."""
        return [e.to_dict() for e in self.entries.values()]


def proof_block(code: str, header: str) -> str:
    """The part of a verified proof that is inserted into another file: its body, without the header.

    The proof's own ``open``/``set_option`` lines that the problem's header lacks are kept inside a ``section`` so
    they cannot change how the main theorem's statement elaborates.
    """
    lean = LeanCode(code)
    given = set(LeanCode(header).options_and_opens)
    extra = [line for line in lean.options_and_opens if line not in given]
    body = lean.body.strip()
    return "section\n" + "\n".join(extra) + "\n\n" + body + "\nend" if extra else body


def _refers(tokens: Iterable[str], names: set[str]) -> set[str]:
    """The names among ``names`` that the tokens mention (``foo`` or ``foo.mp``)."""
    found = set()
    for token in tokens:
        if token in names:
            found.add(token)
        elif "." in token:
            found.update(n for n in names if token.startswith(n + "."))
    return found


def with_lemmas(code: str, proved: Sequence[PoolEntry]) -> tuple[str, tuple[str, ...]]:
    """Insert the proved lemmas ``code`` refers to but does not declare, after its header.

    Returns:
        The code to verify, and the names of the lemmas inserted.
    """
    lean = LeanCode(code)
    declared = {d.name for d in lean.declarations if d.name}
    names = {e.lemma.name for e in proved} - declared
    mentioned = _refers((t.text for t in lean.lexed.tokens if t.kind == "ident"), names)
    missing = [e for e in proved if e.lemma.name in mentioned and e.proof is not None]
    if not missing:
        return code, ()
    lines = list(lean.lines)
    count = lean.header_line_count
    blocks = "\n\n".join((e.proof or "").strip() for e in missing)
    head = "\n".join(lines[:count]) + "\n\n" if count else ""
    body = "\n".join(lines[count:]).lstrip("\n")
    return f"{head}{blocks}\n\n{body}", tuple(e.lemma.name for e in missing)


def used_lemmas(code: str, theorem: str, names: Iterable[str]) -> tuple[str, ...]:
    """The lemmas among ``names`` that the proof of ``theorem`` in ``code`` depends on, directly or through others."""
    lean = LeanCode(code)
    declarations = {d.name: d for d in lean.declarations if d.name}
    wanted = set(names)
    reached: set[str] = set()
    todo = [theorem]
    while todo:
        declaration = declarations.get(todo.pop())
        if declaration is None:
            continue
        for name in _refers(declaration.tokens, set(declarations)) - reached:
            reached.add(name)
            todo.append(name)
    return tuple(n for n in dict.fromkeys(wanted) if n in reached)
