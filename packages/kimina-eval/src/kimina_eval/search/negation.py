"""Negation filtering: the statement that a candidate lemma is false, built from its binders and conclusion.

A lemma ``lemma foo (x : ℝ) (h : 0 < x) : P x`` claims ``∀ (x : ℝ) (h : 0 < x), P x``; its negation is

    theorem foo_neg : ¬ (∀ (x : ℝ) (h : 0 < x), P x) := by

The binder groups are quantified in order, so a later binder may mention an earlier one. A hypothesis binder
``(h : 0 < x)`` stays a binder: ``∀ (h : 0 < x), P x`` is the same term as ``0 < x → P x``, and keeping the name
matters when the conclusion mentions ``h``. Implicit and strict-implicit binders (``{x : ℝ}``, ``⦃x⦄``, ``{{x}}``)
become explicit: implicitness changes how a term is used, not what it says, and an explicit binder is what a proof of
the negation wants to instantiate. Instance binders (``[Fintype α]``) stay instance binders, so the conclusion still
finds the instance. A lemma without binders negates to ``¬ (conclusion)``. Comments are dropped and the statement is
written on one line.

Proving the negation shows the lemma is false, so it can be dropped. One caveat makes that stronger, never weaker:
a variable the lemma leaves unbound (Lean's auto-bound implicits, e.g. ``α`` in ``(f : α → α)``) is bound outside the
negation, giving ``∀ α, ¬ ...``, which still implies ``¬ ∀ α, ...``.
"""

from __future__ import annotations

from kimina_eval.search.lemmas import Binder, Lemma

__all__ = ["negation_formal_statement", "negation_statement", "quantified"]


def _negation_name(lemma: Lemma) -> str:
    """The name of a lemma's negation: its name with dots replaced by underscores, then ``_neg``."""
    return lemma.name.replace(".", "_") + "_neg"


def quantified(binder: Binder) -> str:
    """A binder group as written in a ``∀``: instance binders keep their brackets, all others become ``( )``."""
    if binder.kind == "bare":
        return binder.text
    if binder.kind == "instance":
        return f"[{binder.text}]"
    return f"({binder.text})"


def negation_statement(lemma: Lemma) -> str:
    """The theorem stating that ``lemma`` is false, without its proof (see the module docstring for the rules).

    Example:
        >>> from kimina_eval.search.lemmas import lemmas_in_code
        >>> lemma = lemmas_in_code("lemma foo {x : ℝ} (h : 0 < x) : x ^ 2 > 0 := by sorry")[0]
        >>> negation_statement(lemma)
        'theorem foo_neg : ¬ (∀ (x : ℝ) (h : 0 < x), x ^ 2 > 0)'
    """
    claim = lemma.conclusion
    if lemma.binders:
        claim = f"∀ {' '.join(quantified(b) for b in lemma.binders)}, {claim}"
    return f"theorem {_negation_name(lemma)} : ¬ ({claim})"


def negation_formal_statement(lemma: Lemma, header: str = "") -> str:
    """The negation as a statement to prove: ``header + negation + ' := by'``."""
    return f"{header}{negation_statement(lemma)} := by"
