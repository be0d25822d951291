"""What counts as a "tactic" for think/code alignment: tactic names from a vocabulary, and normalised proof lines.

A tactic *name* is an identifier of the proof text that is a known Lean 4 or Mathlib tactic (`nlinarith`, `rw`,
`interval_cases`, ...): matching a vocabulary, rather than guessing from position, ignores hypotheses, lemma names
and the continuation lines of long terms. A tactic *invocation* is a proof line with its whitespace normalised
(`nlinarith [sq_nonneg (x-1)]`), so renaming nothing and re-indenting the proof still matches.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from typing import NamedTuple, TypeVar

from kimina_format.parsing import UTF8_ERRORS

__all__ = [
    "TACTIC_NAMES",
    "TacticsUsed",
    "identifier_words",
    "iou",
    "tactic_invocations",
    "tactic_names",
    "tactics_used",
]

T = TypeVar("T")


# Lean 4 core, Std/Batteries and Mathlib tactics (and the tactic combinators and structuring words that shape a
# proof: `have`, `calc`, `all_goals`, ...). Names only; `simp?` style variants are folded onto their base name.
TACTIC_NAMES: frozenset[str] = frozenset(
    """
    abel abel_nf absurd ac_rfl aesop all_goals any_goals apply apply_assumption apply_fun apply_rules assumption
    assumption_mod_cast bound by_cases by_contra by_contra! calc cancel_denoms case cases cases' change choose
    clear compute_degree congr congr! constructor continuity contradiction contrapose contrapose! conv convert
    decide decreasing_tactic delta done dsimp exact exact? exact_mod_cast exacts exfalso exists existsi ext
    fapply fconstructor field_simp filter_upwards fin_cases first focus fun_prop gcongr generalize group
    have haveI induction induction' infer_instance injection interval_cases intro intros iterate left lift
    linarith linear_combination match measurability mod_cases module monotonicity mono native_decide
    next nlinarith nlinarith! noncomm_ring nontriviality norm_cast norm_num norm_num1 nth_rewrite nth_rw obtain
    omega peel polyrith positivity push_cast push_neg qify rcases rcongr rel refine refine' rename rename_i repeat
    repeat' replace revert rewrite rfl right ring ring1 ring_nf rintro rintros rotate_left rotate_right rw rw?
    rwa set show simp simp? simp_all simp_arith simp_rw simpa skip slim_check solve_by_elim specialize split
    split_ifs subst subst_vars suffices swap symm tauto tfae_finish tfae_have trans trivial try unfold unfold_let
    use use! wlog zify
    """.split()
)

# Tactic names are ASCII, so names are found on bytes: every byte that cannot be part of a Lean identifier (ASCII
# punctuation and all non-ASCII bytes, e.g. of `⟨`, `ℝ`, `h₀`) becomes a space and the rest splits into words. Dots are
# kept, so a lemma like `Nat.le.refl` is one word and never counts as the tactic `refl`.
_NAME_CHARS = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'?!.")
_TO_WORDS = bytes(c if c in _NAME_CHARS else 32 for c in range(256))
_TACTIC_WORDS = frozenset(name.encode() for name in TACTIC_NAMES)
# Characters that carry no tactic on their own: a line made only of these (`)`, `}`, `<;>`) is not an invocation.
_TRIVIAL_CHARS = b"()[]{}.,;<>|=:"
_BULLET = "·".encode()


def tactic_names(lines: Iterable[str]) -> frozenset[str]:
    """The set of known tactic names used in `lines` of comment-free Lean proof text."""
    return _names("\n".join(lines).encode(errors=UTF8_ERRORS))


def tactic_invocations(lines: Iterable[str]) -> frozenset[bytes]:
    """The set of normalised proof lines: whitespace and bullets deleted, lines of bare brackets ignored.

    Deleting all whitespace (rather than normalising it) makes `nlinarith [sq_nonneg (x-1)]` and
    `nlinarith [sq_nonneg (x - 1)]` one invocation; merging `x y` into `xy` cannot matter for a similarity score.
    The lines are UTF-8 bytes: only their equality matters.
    """
    return _invocations("\n".join(lines).encode(errors=UTF8_ERRORS))


class TacticsUsed(NamedTuple):
    """What `tactics_used` finds in some proof lines."""

    names: frozenset[str]
    invocations: frozenset[bytes]
    words: frozenset[bytes]  # the words of `watch` that occur in the lines, as whole identifiers


def tactics_used(lines: Iterable[str], watch: frozenset[bytes] = frozenset()) -> TacticsUsed:
    """`tactic_names(lines)` and `tactic_invocations(lines)` at once, sharing the work; also which `watch` words occur.

    `watch` holds identifier-shaped words (UTF-8); a caller uses it to learn cheaply whether a rarer check is needed.
    """
    data = "\n".join(dict.fromkeys(lines)).encode(errors=UTF8_ERRORS)
    words = data.translate(_TO_WORDS).split()
    names = frozenset(map(bytes.decode, _TACTIC_WORDS.intersection(words)))
    return TacticsUsed(names, _invocations(data), watch.intersection(words) if watch else frozenset())


def identifier_words(text: str) -> set[bytes]:
    """The distinct identifier-shaped ASCII words of `text` (UTF-8): letters, digits, `_`, `'`, `?`, `!` and dots.

    `Nat.le.refl` and `exact?` are one word each; non-ASCII characters (`ℝ`, `⟨`, the `₀` of `h₀`) split words.
    """
    return set(text.encode(errors=UTF8_ERRORS).translate(_TO_WORDS).split())


def _names(data: bytes) -> frozenset[str]:
    """`tactic_names` of UTF-8 proof lines joined by newlines."""
    words = data.translate(_TO_WORDS).split()
    return frozenset(map(bytes.decode, _TACTIC_WORDS.intersection(words)))


def _invocations(data: bytes) -> frozenset[bytes]:
    """`tactic_invocations` of UTF-8 proof lines joined by newlines."""
    squeezed = data.replace(_BULLET, b"").translate(None, b" \t")
    # A line is kept when something other than brackets and separators remains; deleting those keeps the line count.
    return frozenset(compress(squeezed.split(b"\n"), squeezed.translate(None, _TRIVIAL_CHARS).split(b"\n")))


def iou(a: frozenset[T], b: frozenset[T]) -> float:
    """Intersection over union of two sets; 1.0 when both are empty (nothing described, nothing used)."""
    union = len(a | b)
    return 1.0 if union == 0 else len(a & b) / union
