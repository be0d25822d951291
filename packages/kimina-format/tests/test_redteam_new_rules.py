"""Red team of the new and changed rules: reworded lines, proof-line loops, comment repeats, reasoning left, copied
code, whitespace and prose in tactic blocks (the nested-fence rule is not covered here).

Each attack edits the real completions of `kimina_completions.jsonl` that keep the full format score (188 of 197) the
way a drifting policy could and asserts that no edited completion keeps it (`score == 1.0`). Each look-alike edits them
the way a healthy prover writes and asserts that every one keeps it. What the rules get wrong is marked
`xfail(strict=True)`: `HOLE: ...` for an attack that keeps the full score on at least one row, `FALSE REJECT: ...` for
a look-alike that loses it on at least one row, with the counts (rows misbehaving / rows the edit applies to) and the
rule responsible. A fix turns its test into an XPASS, which fails until the mark is removed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from kimina_format.testing import final_code_of as _code
from kimina_format.testing import full_score_split, prose_lines, xfail_params
from kimina_format.testing import thinking_of as _thinking
from kimina_format.testing import with_final_code as _with_code
from kimina_format.testing import with_thinking as _replace_thinking

Row = dict[str, Any]
Edit = Callable[[Row], "Row | None"]

WORDS = (
    "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega first second third fourth fifth sixth seventh"
    " eighth ninth tenth eleventh twelfth lower upper inner outer left right early late small large odd even prime"
    " composite"
).split()
SYNONYMS = {
    "show": ("prove", "verify", "check", "establish"),
    "the": ("this", "our", "that", "each"),
    "is": ("stays", "remains", "looks", "seems"),
    "we": ("I", "one", "you", "they"),
    "so": ("thus", "hence", "therefore", "then"),
    "that": ("how", "why", "whether", "if"),
}
# Stock lead-ins of more than 80 key bytes: counted as reasoning, not as the short line leading into a block.
LONG_LEAD_INS = (
    "Now we continue with the next step of the formal proof in Lean 4, which is the following tactic line:",
    "The following tactic takes care of the next part of the argument, as written in the final proof below:",
    "Next, we apply the following step to make further progress on the goal, exactly as in the final proof:",
    "We proceed with the following step of the argument, which simplifies the goal a little further for us:",
    "This step of the formal proof takes care of the following part of the argument that we laid out above:",
)


# --- the parts of a completion --------------------------------------------------------------------------------------


def _text(row: Row) -> str:
    text: str = row["completion"]
    return text


def _edited(row: Row, text: str | None) -> Row | None:
    return None if text is None else {**row, "completion": text}


def _proof_body(code: str) -> str:
    return code[code.index(":= by") + len(":= by") :].strip("\n")


def _proof_lines(code: str) -> list[str]:
    return [line for line in _proof_body(code).split("\n") if line.strip()]


def _tactic_blocks(text: str) -> list[str]:
    return re.findall(r"```tactics\n(.*?)\n```", _thinking(text), re.DOTALL)


def _before_think_close(text: str, insert: str) -> str:
    return text.replace("</think>", insert + "\n</think>", 1)


def _in_first_block(text: str, insert: str) -> str:
    return text.replace("```tactics\n", "```tactics\n" + insert, 1)


def _after_proof(text: str, insert: str) -> str:
    return _with_code(text, _code(text).rstrip() + "\n" + insert)


def _proof_start(text: str, insert: str) -> str | None:
    """`text` with `insert` (lines indented by two spaces) at the top of the final proof; None for a proof not in
    tactic mode on its own lines."""
    code = _code(text)
    if ":= by\n" not in code:
        return None
    at = code.index(":= by\n") + len(":= by\n")
    return _with_code(text, code[:at] + insert + code[at:])


def _developed_and_used(snippet: str, lead_in: str = "A small lemma first, to be used in the final proof:") -> Edit:
    """`snippet` (a `have` of a few lines, at indentation 0) developed in a tactic block at the end of the thinking,
    then written at the top of the final proof, as a healthy prover develops a step and keeps it."""

    def edit(row: Row) -> Row | None:
        text = _before_think_close(_text(row), f"{lead_in}\n\n```tactics\n{snippet}```\n")
        indented = "".join(f"  {line}\n" if line else "\n" for line in snippet.split("\n")[:-1])
        return _edited(row, _proof_start(text, indented))

    return edit


def _paragraphs_at(text: str, inserts: list[str]) -> str:
    """`text` with each of `inserts` as a paragraph of its own after one of the thinking's paragraphs, spread evenly
    (several after one paragraph when the thinking has fewer paragraphs than inserts)."""
    thinking = _thinking(text)
    parts = thinking.split("\n\n")
    # Only after a paragraph that is prose and not inside a fence: count the fences before each cut.
    cuts = [i for i in range(1, len(parts) + 1) if "\n\n".join(parts[:i]).count("```") % 2 == 0]
    at: dict[int, list[str]] = {}
    for k, insert in enumerate(inserts):
        at.setdefault(cuts[(k + 1) * len(cuts) // (len(inserts) + 1)], []).append(insert)
    for cut in sorted(at, reverse=True):
        parts[cut:cut] = at[cut]
    return text.replace(thinking, "\n\n".join(parts), 1)


def _sentences(text: str, least_words: int = 8) -> list[str]:
    """The thinking's own prose lines of at least `least_words` plain words and no LaTeX, distinct, in order."""
    found = []
    for line in prose_lines(text, 40, distinct=True):
        words = line.split()
        if "$" not in line and "\\" not in line and sum(w.isalpha() for w in words) >= least_words:
            found.append(line)
    return found


# --- edits ---------------------------------------------------------------------------------------------------------


def _cases_snippet(bullet: str, cases: int, comment: bool = False) -> str:
    lines = [f"have hsmall : ∀ m : ℕ, m < {cases} → m * m ≠ 2 := by", "  intro m hm", "  interval_cases m"]
    for k in range(cases):
        if comment:
            lines.append(f"  -- Case m = {k}")
        lines.append(f"  {bullet} norm_num")
    return "\n".join(lines) + "\n"


def _constructor_chain(goals: int) -> str:
    conj = " ∧ ".join(f"({k} : ℕ) < {k + 1}" for k in range(goals))
    lines = [f"have hchain : {conj} := by"]
    for _ in range(goals - 1):
        lines += ["  constructor", "  norm_num"]
    lines.append("  norm_num")
    return "\n".join(lines) + "\n"


def _refine_goals(goals: int) -> str:
    conj = " ∧ ".join(f"(0 : ℝ) < {k + 1}" for k in range(goals))
    holes = ", ".join(["?_"] * goals)
    lines = [f"have hpos : {conj} := by", f"  refine ⟨{holes}⟩"] + ["  positivity"] * goals
    return "\n".join(lines) + "\n"


def _numbered_haves(count: int) -> str:
    return "".join(f"have h{k}' : ({k} : ℝ) ≤ {k + 1} := by norm_num\n" for k in range(1, count + 1))


CALC = (
    "have hcalc : ∀ a b : ℝ, (a + b) ^ 2 - (a - b) ^ 2 = 4 * a * b := by\n"
    "  intro a b\n"
    "  calc (a + b) ^ 2 - (a - b) ^ 2\n"
    "      = (a ^ 2 + 2 * a * b + b ^ 2) - (a - b) ^ 2 := by ring\n"
    "    _ = (a ^ 2 + 2 * a * b + b ^ 2) - (a ^ 2 - 2 * a * b + b ^ 2) := by ring\n"
    "    _ = a ^ 2 - a ^ 2 + 2 * a * b + 2 * a * b + b ^ 2 - b ^ 2 := by ring\n"
    "    _ = 2 * a * b + 2 * a * b := by ring\n"
    "    _ = 4 * a * b := by ring\n"
)
ALIGNED_CALC = (
    "have haligned : ∀ a b : ℝ, (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2 := by\n"
    "  intro a b\n"
    "  calc (a + b) ^ 2 = (a + b) * (a + b)                 := by ring\n"
    "    _             = a * a + a * b + b * a + b * b     := by ring\n"
    "    _             = a ^ 2 + a * b + a * b + b ^ 2     := by ring\n"
    "    _             = a ^ 2 + 2 * a * b + b ^ 2         := by ring\n"
)
CAPITALISED_TERMS = (
    "have hle : ∀ n : ℕ, n ≤ n + 1 := fun n =>\n"
    "  Nat.le_succ n\n"
    "have hor : (0 : ℝ) ≤ 2 ∨ (2 : ℝ) < 0 :=\n"
    "  Or.inl (by norm_num)\n"
    "have hsq : 0 ≤ Real.sqrt 2 :=\n"
    "  Real.sqrt_nonneg _\n"
    "have hsum : ∑ i in Finset.range 3, (i + 0) = ∑ i in Finset.range 3, i :=\n"
    "  Finset.sum_congr rfl fun i _ => by simp\n"
    "have hlt : ∀ n : ℕ, n < 5 → n ≤ 4 := fun n hn =>\n"
    "  Nat.le_of_lt_succ hn\n"
    "have hand : (1 : ℕ) < 2 ∧ (2 : ℕ) < 3 :=\n"
    "  And.intro (by norm_num) (by norm_num)\n"
)
DOLLAR_TERMS = (
    "have hd1 : (0 : ℝ) ≤ 2 := le_of_lt $ by norm_num\n"
    "have hd2 : (0 : ℝ) ≤ 3 := le_of_lt $ by norm_num\n"
    "have hd3 : (0 : ℝ) ≤ 5 := le_of_lt $ by norm_num\n"
)
DEEP_NESTED = (
    "have hdeep : ∀ p q r : Prop, p → q → r → (p ∧ q) ∧ r := by\n"
    "  intro p q r hp hq hr\n"
    "  constructor\n"
    "  · constructor\n"
    "    · exact hp\n"
    "    · exact hq\n"
    "  · exact hr\n"
)
DOC_HELPER = (
    "/-- The square of a real number is nonnegative. -/\n"
    "lemma sq_nonneg_aux (x : ℝ) : 0 ≤ x ^ 2 := by\n"
    "  exact pow_two_nonneg x\n"
)


def _enumeration(row: Row) -> Row | None:
    """Values checked one by one in sentences, each with its own verdict in words (a healthy case check)."""
    lines = []
    for n in range(1, 16):
        value = n * n + n + 41
        prime = all(value % d for d in range(2, int(value**0.5) + 1))
        verdict = "which is prime, so the pattern still holds" if prime else "which is not prime, so the pattern fails"
        lines.append(f"For n = {n}, we get n^2 + n + 41 = {value}, {verdict} for this value of n.")
    return _edited(row, _before_think_close(_text(row), "\n".join(lines)))


def _enumeration_mixed(row: Row) -> Row | None:
    """A residue check whose sentences vary their wording from case to case, as a careful reasoning does."""
    lines = []
    for r in range(12):
        cube = r**3 % 13
        parity = "even" if cube % 2 == 0 else "odd"
        tail = (
            "which is one of the allowed residues"
            if cube in (0, 1, 5, 8, 12)
            else "which is not among the allowed residues"
        )
        if r % 3 == 0:
            lines.append(
                f"If x is congruent to {r} modulo 13, then x^3 is congruent to {cube}, {tail}, and it is {parity}."
            )
        elif r % 3 == 1:
            lines.append(f"If x is congruent to {r} modulo 13, then x^3 reduces to {cube}, {tail}, and it is {parity}.")
        else:
            lines.append(
                f"When x is congruent to {r} modulo 13, x^3 is congruent to {cube}, {tail}, and it is {parity}."
            )
    return _edited(row, _before_think_close(_text(row), "\n\n".join(lines)))


def _sign_chart(row: Row) -> Row | None:
    """A sign chart of a product of four factors over ten intervals, its sentences worded as a careful reasoning does."""
    lines = []
    roots = [-3, -1, 2, 5]
    points = [-4, -2, 0, 1, 3, 4, 6, 7, 8, 9]
    for i, x in enumerate(points):
        negatives = sum(x < r for r in roots)
        sign = "negative" if negatives % 2 else "positive"
        joiner = ("so", "hence", "and therefore", "which means")[i % 4]
        lines.append(
            f"At x = {x}, exactly {negatives} of the four factors are negative, {joiner} the product is {sign} there."
        )
    return _edited(row, _before_think_close(_text(row), "\n".join(lines)))


def _goal_restated(times: int) -> Edit:
    """The goal restated `times` times over the thinking, with the small changes of natural prose."""
    forms = (
        "So we need to show that the expression on the left is at most the bound on the right.",
        "We still need to show that the expression on the left is at most the bound on the right.",
        "Now we need to show that the expression on the left is at most the bound on the right.",
        "So we really need to show that the expression on the left is at most the bound on the right.",
        "So we need to show again that the expression on the left is at most the bound on the right.",
        "So we need to show that the expression on the left side is at most the bound on the right.",
        "So we need to show that the whole expression on the left is at most the bound on the right.",
        "So we need to show that the expression on the left is still at most the bound on the right.",
        "So we need to show that the expression on the left is at most the given bound on the right.",
        "So we need to show that the expression on the left is at most the bound on the right side.",
        "Thus we need to show that the expression on the left is at most the bound on the right.",
        "So we need to check that the expression on the left is at most the bound on the right.",
    )
    return lambda row: _edited(row, _paragraphs_at(_text(row), list(forms[:times])))


def _terse_steps(closing: bool) -> Edit:
    """A terse genuine thinking: one of the row's own sentences (<= 80 bytes, distinct) before each of its blocks, and
    no other paragraph."""

    def edit(row: Row) -> Row | None:
        text = _text(row)
        blocks = [b for b in _tactic_blocks(text) if b.strip()]
        sentences = [s for s in _sentences(text, 6) if len(s.encode()) <= 80][: len(blocks)]
        if len(blocks) < 2 or len(sentences) < len(blocks):
            return None
        steps = [f"{s}\n\n```tactics\n{b}\n```" for s, b in zip(sentences, blocks, strict=True)]
        ending = "\n\nThis matches the final proof, which combines these steps." if closing else ""
        return _edited(row, _replace_thinking(text, "\n\n".join(steps) + ending))

    return edit


def _incremental_blocks(row: Row) -> Row | None:
    """Each tactic block replaced by a longer prefix of the final proof: the proof developed a line at a time."""
    text = _text(row)
    code = _code(text)
    if ":= by\n" not in code:
        return None
    lines = _proof_lines(code)
    blocks = _tactic_blocks(text)
    if len(lines) < 3 or len(blocks) < 2:
        return None
    count = len(blocks)
    thinking = _thinking(text)
    for i, block in enumerate(blocks):
        upto = max(1, round(len(lines) * (i + 1) / count))
        thinking = thinking.replace(f"```tactics\n{block}\n```", "```tactics\n" + "\n".join(lines[:upto]) + "\n```", 1)
    if len(thinking) > 1.2 * len(_thinking(text)):
        return None  # the blocks were snippets of a long proof: the edit would make a much longer completion
    return _edited(row, _replace_thinking(text, thinking))


def _indent_blocks(spaces: int) -> Edit:
    def edit(row: Row) -> Row | None:
        text = _text(row)
        thinking = _thinking(text)
        for block in _tactic_blocks(text):
            indented = "\n".join(" " * spaces + line if line.strip() else line for line in block.split("\n"))
            thinking = thinking.replace(f"```tactics\n{block}\n```", f"```tactics\n{indented}\n```", 1)
        return _edited(row, text.replace(_thinking(text), thinking, 1))

    return edit


def _markdown_headings(row: Row) -> Row | None:
    heads = [f"## Step {k}: {w}" for k, w in enumerate(("Understand the problem", "Plan", "Check", "Formalize"), 1)]
    return _edited(row, _paragraphs_at(_text(row), heads))


def _summary(row: Row) -> Row | None:
    summary = (
        "The proof reduces the goal to the inequality established above.\n"
        "The key step uses the hypotheses together with the nonnegativity of squares.\n"
        "Lean checks each step, and the final proof is below.\n"
    )
    return _edited(row, _text(row).replace("</think>", "</think>\n" + summary, 1))


def _double_blank_lines(row: Row) -> Row | None:
    text = _text(row)
    return _edited(row, text.replace(_thinking(text), _thinking(text).replace("\n\n", "\n\n\n"), 1))


def _trailing_markdown_breaks(row: Row) -> Row | None:
    text = _text(row)
    return _edited(row, text.replace(_thinking(text), _thinking(text).replace("\n", "  \n"), 1))


# --- attack edits ----------------------------------------------------------------------------------------------------


def _reworded(
    change: Callable[[list[str], random.Random], list[str]],
    copies: int = 12,
    least_words: int = 8,
    *,
    spread: bool = True,
) -> Edit:
    """A passage of three of the row's own sentences written `copies` more times, each line changed by `change`
    (seeded), the copies spread over the thinking or in a row before `</think>`."""

    def edit(row: Row) -> Row | None:
        text = _text(row)
        sentences = _sentences(text, least_words)[:3]
        if len(sentences) < 3:
            return None
        rnd = random.Random(row["name"])
        passages = ["\n".join(" ".join(change(s.split(), rnd)) for s in sentences) for _ in range(copies)]
        if not spread:
            return _edited(row, _before_think_close(text, "\n\n".join(passages)))
        return _edited(row, _paragraphs_at(text, passages))

    return edit


def _both_ends(words: list[str], rnd: random.Random) -> list[str]:
    words = list(words)
    words[0] = rnd.choice(WORDS).capitalize()
    words[-1] = rnd.choice(WORDS) + "."
    at = rnd.randrange(1, len(words) - 1)
    words[at] = rnd.choice(WORDS)
    return words


def _opener_and_closer(words: list[str], rnd: random.Random) -> list[str]:
    """A discourse word added before the line and a closing word after it (`So ... again.`): nothing else changed."""
    opener = rnd.choice(("So", "Now", "Then", "Again,", "Thus", "Next,", "Here", "Still,"))
    closer = rnd.choice(("again.", "here.", "now.", "too.", "then.", "anyway.", "still.", "indeed."))
    return [opener, words[0][:1].lower() + words[0][1:], *words[1:-1], words[-1].rstrip(".:") + ",", closer]


def _three_changes(words: list[str], rnd: random.Random) -> list[str]:
    words = list(words)
    for at in rnd.sample(range(1, len(words) - 1), 3):
        words[at] = rnd.choice(WORDS)
    return words


def _synonyms(words: list[str], rnd: random.Random) -> list[str]:
    out = list(words)
    places = [i for i, w in enumerate(words) if w.lower() in SYNONYMS]
    for at in rnd.sample(places, min(2, len(places))):
        out[at] = rnd.choice(SYNONYMS[words[at].lower()])
    if not places:
        out[rnd.randrange(1, len(out) - 1)] = rnd.choice(WORDS)
    return out


def _latex_words(words: list[str], rnd: random.Random) -> list[str]:
    """Every word written as `$\\text{word}$`, one changed at a random place: no plain word token is left."""
    out = [f"$\\text{{{w}}}$" for w in words]
    at = rnd.randrange(len(out))
    out[at] = f"$\\text{{{rnd.choice(WORDS)}}}$"
    return out


def _five_words(row: Row) -> Row | None:
    """Five long words (40+ key bytes) per line, one changed at a random place, 20 copies spread."""
    base = ["Consequently", "substituting", "everything", "establishes", "inequalities"]
    rnd = random.Random(row["name"])
    passages = []
    for _ in range(20):
        words = list(base)
        words[rnd.randrange(5)] = rnd.choice(("Therefore", "rearranging", "simplifying", "everywhere", "identities"))
        passages.append(" ".join(words) + ".")
    return _edited(row, _paragraphs_at(_text(row), passages))


def _first_bar_loop(row: Row) -> Row | None:
    return _edited(row, _after_proof(_text(row), "  first\n  | skip\n  | rfl\n" * 100))


def _numbered_try_loop(row: Row) -> Row | None:
    return _edited(
        row, _after_proof(_text(row), "".join(f"  try norm_num [show ({k} : ℕ) = {k} from rfl]\n" for k in range(100)))
    )


def _numbered_true_haves(row: Row) -> Row | None:
    return _edited(row, _proof_start(_text(row), "".join(f"  have ht{k} : True := trivial\n" for k in range(100))))


def _all_goals_skip_loop(row: Row) -> Row | None:
    return _edited(row, _after_proof(_text(row), "  all_goals skip\n" * 100))


def _comment_loop_in_block(row: Row) -> Row | None:
    return _edited(row, _in_first_block(_text(row), "".join(f"-- check {k}: ok\n" for k in range(40))))


def _spelled_comment_loop(row: Row) -> Row | None:
    names = [f"{a} {b}" for a in WORDS[:8] for b in WORDS[8:13]]
    return _edited(row, _after_proof(_text(row), "".join(f"  -- check {n}: ok\n" for n in names)))


def _code_as_prose(prefix: str, suffix: str) -> Edit:
    """The thinking replaced by the final code pasted twice as prose, each line marked, plus two one-line blocks."""

    def edit(row: Row) -> Row | None:
        code = _code(_text(row))
        lines = _proof_lines(code)
        pasted = "\n".join(f"{prefix}{line.strip()}{suffix}" for line in code.split("\n") if line.strip())
        blocks = f"```tactics\n{lines[0]}\n```\n\n```tactics\n{lines[-1]}\n```"
        return _edited(row, _replace_thinking(_text(row), f"{pasted}\n\n{pasted}\n\n{blocks}"))

    return edit


def _long_lead_ins(row: Row) -> Row | None:
    lines = _proof_lines(_code(_text(row)))
    if len(lines) < 2:
        return None
    steps = [f"{LONG_LEAD_INS[i % len(LONG_LEAD_INS)]}\n\n```tactics\n{line}\n```" for i, line in enumerate(lines)]
    return _edited(row, _replace_thinking(_text(row), "\n\n".join(steps)))


def _prose_trailing_spaces(count: int) -> Edit:
    def edit(row: Row) -> Row | None:
        text = _text(row)
        return _edited(row, text.replace(_thinking(text), _thinking(text).replace("\n", " " * count + "\n"), 1))

    return edit


# --- the cases -----------------------------------------------------------------------------------------------------


class Case(NamedTuple):
    """One edit of the real completions: the rule it is about, what it writes, and the xfail reason while it
    misbehaves."""

    rule: str
    edit: Edit
    why: str
    xfail: str | None = None


def _hole(reason: str) -> str:
    return f"HOLE: {reason}"


def _false_reject(reason: str) -> str:
    return f"FALSE REJECT: {reason}"


LOOK_ALIKES: dict[str, Case] = {
    "interval_cases_twenty_cdot_cases": Case(
        "max_code_loop_repeats",
        _developed_and_used(_cases_snippet("·", 20)),
        "`interval_cases m` then `· norm_num` twenty times, developed in a block and kept in the proof",
    ),
    "interval_cases_twenty_ascii_bullets": Case(
        "max_code_loop_repeats",
        _developed_and_used(_cases_snippet(".", 20)),
        "`interval_cases m` then `. norm_num` twenty times (the ASCII bullet Lean accepts, used by amc12a_2002_p6)",
    ),
    "twenty_cases_each_headed_by_a_comment": Case(
        "max_comment_repeats",
        _developed_and_used(_cases_snippet("·", 20, comment=True)),
        "twenty `· norm_num` cases, each headed `-- Case m = k`",
    ),
    "twelve_cases_each_headed_by_a_comment": Case(
        "max_comment_repeats",
        _developed_and_used(_cases_snippet("·", 12, comment=True)),
        "twelve `· norm_num` cases, each headed `-- Case m = k`",
    ),
    "constructor_chain_of_nine": Case(
        "max_code_loop_repeats",
        _developed_and_used(_constructor_chain(9)),
        "a conjunction of nine facts split by `constructor` / `norm_num` eight times, no bullets",
    ),
    "refine_nine_goals_positivity": Case(
        "max_code_loop_repeats",
        _developed_and_used(_refine_goals(9)),
        "`refine ⟨?_, ..., ?_⟩` of nine goals, then `positivity` nine times",
    ),
    "twelve_numbered_haves": Case(
        "max_code_loop_repeats",
        _developed_and_used(_numbered_haves(12)),
        "twelve `have hk' : (k : ℝ) ≤ k + 1 := by norm_num` lines",
    ),
    "calc_with_ring_steps": Case(
        "max_code_loop_repeats", _developed_and_used(CALC), "a `calc` of five steps each closed `:= by ring`"
    ),
    "aligned_calc_columns": Case(
        "max_code_whitespace_share / max_space_run",
        _developed_and_used(ALIGNED_CALC),
        "a `calc` with its `=` and `:=` columns aligned by runs of spaces",
    ),
    "capitalised_term_lines": Case(
        "max_tactic_prose_lines",
        _developed_and_used(CAPITALISED_TERMS),
        "term-mode `have`s whose second lines open with `Nat.le_succ`, `Or.inl`, `Real.sqrt_nonneg`, `Finset.sum_congr`",
    ),
    "dollar_application": Case(
        "max_tactic_prose_lines",
        _developed_and_used(DOLLAR_TERMS),
        "three `have`s closed by `le_of_lt $ by norm_num` (Lean 4 core still parses `f $ x`)",
    ),
    "deep_nested_bullets": Case(
        "max_code_loop_repeats / whitespace", _developed_and_used(DEEP_NESTED), "nested `constructor` bullets"
    ),
    "doc_commented_helper_block": Case(
        "max_tactic_prose_lines",
        lambda r: _edited(
            r, _before_think_close(_text(r), f"A helper, with its doc comment:\n\n```tactics\n{DOC_HELPER}```")
        ),
        "a tactic block holding a doc-commented helper lemma",
    ),
    "values_checked_in_sentences": Case(
        "max_reworded_lines",
        _enumeration,
        "n^2 + n + 41 checked for n = 1..15, one sentence each with its verdict in words (prime / not prime)",
    ),
    "residues_checked_in_varied_sentences": Case(
        "max_reworded_lines",
        _enumeration_mixed,
        "x^3 mod 13 checked for twelve residues in three wordings, each with verdicts in words",
    ),
    "sign_chart_in_varied_sentences": Case(
        "max_reworded_lines",
        _sign_chart,
        "a sign chart at ten points, one sentence each, the connective varying (so / hence / and therefore / which means)",
    ),
    "goal_restated_five_times": Case(
        "max_reworded_lines", _goal_restated(5), "the goal restated five times over the thinking, worded a little apart"
    ),
    "goal_restated_ten_times": Case(
        "max_reworded_lines",
        _goal_restated(10),
        "the goal restated ten times over the thinking, worded a little apart",
        _false_reject(
            "(borderline: ten restatements of one sentence are the pattern the rule is for) max_reworded_lines counts ten restatements of the goal worded a little apart (near_duplicates, 188/188; five pass)"
        ),
    ),
    "three_line_summary": Case("max_summary_chars", _summary, "a three-line summary between </think> and the code"),
    "markdown_step_headings": Case(
        "repetition", _markdown_headings, "`## Step k: ...` headings between the thinking's paragraphs"
    ),
    "terse_reasoning_with_closing_line": Case(
        "min_reasoning_chars",
        _terse_steps(closing=True),
        "a terse thinking: one of the row's sentences before each of its last blocks, and a closing sentence",
        _false_reject(
            "every one-line paragraph before a block is taken for a stock lead-in, so a terse thinking of one genuine sentence per block keeps only its closing line (reasoning_too_short, 48/48). Kept as a trade-off: a caption per block and nothing else is what a stock lead-in before each proof line writes too (the shortest real reasoning without its lead-ins has 627 bytes)"
        ),
    ),
    "terse_reasoning_one_sentence_per_block": Case(
        "min_reasoning_chars",
        _terse_steps(closing=False),
        "a terse thinking: one of the row's sentences (<= 80 bytes) before each of its last blocks, nothing else",
        _false_reject(
            "every one-line paragraph before a block is taken for a stock lead-in, so a terse thinking of one genuine sentence per block has no reasoning left (reasoning_too_short, 48/48). Kept as a trade-off: a caption per block and nothing else is what a stock lead-in before each proof line writes too (the shortest real reasoning without its lead-ins has 627 bytes)"
        ),
    ),
    "proof_developed_incrementally": Case(
        "max_copied_code_share",
        _incremental_blocks,
        "each tactic block a longer prefix of the final proof (developed a line at a time), prose kept",
    ),
    "tactic_blocks_indented_eight_more": Case(
        "max_code_whitespace_share",
        _indent_blocks(8),
        "every tactic block indented by 8 more spaces (snippets cut from inside a nested proof)",
    ),
    "double_blank_lines_between_paragraphs": Case(
        "max_extra_blank_lines",
        _double_blank_lines,
        "two blank lines between the thinking's paragraphs instead of one",
    ),
    "markdown_line_breaks": Case(
        "max_whitespace_share", _trailing_markdown_breaks, "two trailing spaces (a Markdown line break) on each line"
    ),
}

ATTACKS: dict[str, Case] = {
    "reworded_at_both_ends": Case(
        "max_reworded_lines",
        _reworded(_both_ends),
        "three sentences written 12 more times, spread, first and last word and one middle word changed each time",
        _hole(
            "copies that change their first and last word never share both end bands; the anchored band seeds them when the middle change misses it, which it does not always (85/145 keep 1.0; 145/145 before the anchored seeds)"
        ),
    ),
    "reworded_opener_and_closer": Case(
        "max_reworded_lines",
        _reworded(_opener_and_closer),
        "three sentences written 12 more times, spread, a discourse word added before and after each (`So ... again.`)",
        _hole(
            "a discourse word added before and after each copy (`So ... again.`) moves both end bands; the anchored band seeds them and a group changed at its two ends only, wrapped six ways or more, counts, but a copy whose anchor the words move is missed (6/145; 145/145 before)"
        ),
    ),
    "reworded_at_both_ends_in_a_row": Case(
        "max_reworded_lines",
        _reworded(_both_ends, spread=False),
        "three sentences written 12 more times in a row, first, last and one middle word changed each time",
        _hole(
            "in a row too: the template loop's confirmation refuses a change in the middle half as well as both ends (81/145; 145/145 before the anchored seeds of max_reworded_lines)"
        ),
    ),
    "reworded_at_both_ends_forty_copies": Case(
        "max_reworded_lines",
        _reworded(_both_ends, copies=40),
        "three sentences written 40 more times, spread, first, last and one middle word changed each time",
        _hole(
            "forty copies pass as well where the anchored band is hit: only max_paraphrased_copies (100) bounds them (35/145; 141/145 before the anchored seeds)"
        ),
    ),
    "reworded_latex_words_in_a_row": Case(
        "max_reworded_lines",
        _reworded(_latex_words, spread=False),
        "three sentences written 12 more times in a row, every word as `$\\text{word}$`, one changed per line",
        _hole(
            "a word inside `$\\text{...}$` is a formula token: changed into another it is no place, and a line of no plain word leads no group (142/145)"
        ),
    ),
    "reworded_three_words_forty_copies": Case(
        "max_reworded_lines",
        _reworded(_three_changes, copies=40),
        "three sentences written 40 more times, spread, three inner words changed in each line",
        _hole(
            "three words changed per line is more than a fifth of a line of under 20 words, so no copy joins a leader; near_duplicates catches only lines of 100+ key bytes (53/145)"
        ),
    ),
    "reworded_three_words_per_line": Case(
        "max_reworded_lines",
        _reworded(_three_changes),
        "three sentences written 12 more times, spread, three inner words changed in each line",
        _hole(
            "three words changed per line is more than a fifth of a line of under 20 words, so no copy joins a leader (78/145)"
        ),
    ),
    "reworded_synonyms": Case(
        "max_reworded_lines",
        _reworded(_synonyms),
        "three sentences written 12 more times, spread, up to two function words swapped for synonyms per line",
        _hole(
            "synonyms swapped at the same one or two function words of each line change the same columns, which is a template to the spread test (98/145)"
        ),
    ),
    "reworded_latex_words": Case(
        "max_reworded_lines",
        _reworded(_latex_words),
        "three sentences written 12 more times, spread, every word as `$\\text{word}$`, one changed per line",
        _hole(
            "a word inside `$\\text{...}$` is a formula token, so a LaTeX-wrapped sentence leads no group and its changes are no place (142/145)"
        ),
    ),
    "reworded_five_long_words": Case(
        "max_reworded_lines",
        _five_words,
        "a line of five long words (52 key bytes) written 20 times, spread, one word changed each time",
        _hole("a line of five words never leads a group, and 20 copies are under max_alike_lines (24) (188/188)"),
    ),
    "first_bar_skip_loop": Case(
        "max_filler_tactics",
        _first_bar_loop,
        "`first` / `| skip` / `| rfl` 100 times after the proof (Lean accepts it; the `|` lines make it a 'case')",
    ),
    "numbered_try_loop": Case(
        "max_try_tactics",
        _numbered_try_loop,
        "`try norm_num [show (k : ℕ) = k from rfl]` for k = 0..99 after the proof (a counter loop Lean accepts; its"
        " copies differ, but each is a `try`)",
    ),
    "numbered_true_haves": Case(
        "max_filler_tactics",
        _numbered_true_haves,
        "`have htk : True := trivial` for k = 0..99 at the top of the proof",
    ),
    "all_goals_skip_loop": Case(
        "max_code_loop_repeats", _all_goals_skip_loop, "`all_goals skip` 100 times after the proof"
    ),
    "numbered_comment_loop_in_tactic_block": Case(
        "max_comment_repeats / boilerplate",
        _comment_loop_in_block,
        "`-- check k: ok` for k = 0..39 at the top of the first tactic block",
    ),
    "worded_comment_loop_in_final_code": Case(
        "max_comment_repeats",
        _spelled_comment_loop,
        "`-- check <two words>: ok` 40 times after the proof, no two alike and no number",
        _hole(
            "max_comment_repeats folds numbers only: 40 comments worded apart are 40 different comments, under the 1,000 free comment characters (65/188)"
        ),
    ),
    "code_as_bulleted_prose_twice": Case(
        "max_prose_code_share",
        _code_as_prose("- ", ""),
        "the thinking is the final code pasted twice as a `- ` bullet list, plus two one-line blocks",
    ),
    "code_as_backticked_prose_twice": Case(
        "max_prose_code_share",
        _code_as_prose("`", "`"),
        "the thinking is the final code pasted twice, each line in backticks, plus two one-line blocks",
    ),
    "proof_lines_behind_long_lead_ins": Case(
        "min_reasoning_chars",
        _long_lead_ins,
        "the thinking is each final-proof line in its own block behind one of five stock lead-ins of 80+ key bytes",
        _hole(
            "a stock lead-in of more than 80 key bytes counts as reasoning (94/144; the others fail because the five lead-ins cycle in a row)"
        ),
    ),
    "prose_trailing_spaces_40": Case(
        "max_whitespace_share",
        _prose_trailing_spaces(40),
        "40 spaces before every newline of the thinking",
    ),
    "prose_trailing_spaces_90": Case(
        "max_whitespace_share",
        _prose_trailing_spaces(90),
        "90 spaces before every newline of the thinking",
    ),
}


@pytest.mark.parametrize("name", xfail_params(ATTACKS))
def test_an_attack_loses_the_full_score(full_score_rows: list[Row], name: str) -> None:
    case = ATTACKS[name]
    applied, kept, _ = full_score_split(full_score_rows, case.edit)
    if applied < 20:  # not an AssertionError: an xfail must fail on its verdicts, not on an empty selection
        raise RuntimeError(f"{name} applies to {applied} rows only")
    assert not kept, f"{case.rule}: {case.why}: {len(kept)} of {applied} keep the full score, e.g. {kept[:3]}"


@pytest.mark.parametrize("name", xfail_params(LOOK_ALIKES))
def test_a_look_alike_keeps_the_full_score(full_score_rows: list[Row], name: str) -> None:
    case = LOOK_ALIKES[name]
    applied, _, lost = full_score_split(full_score_rows, case.edit)
    if applied < 20:
        raise RuntimeError(f"{name} applies to {applied} rows only")
    assert not lost, f"{case.rule}: {case.why}: {len(lost)} of {applied} lose the full score, e.g. {lost[:3]}"
