"""A third red team of the drift classes, by a helper who wrote none of the rules, and the rules it called for.

Its attacks are the simple ones a test author writes in five lines: `Wait.` written 500 times on one line, a passage
looped with its lines reordered, a guessing loop of one-tactic blocks, the theorem pasted again as `example`s, `skip`
after every line, the final code pasted again in the summary, the tactic blocks kept with their reasoning replaced by
a stock opening. Each edits the real completions that keep the full score (188 of 197) and asserts that none keeps it;
each look-alike edits them the way a healthy policy writes and asserts that all keep it. What the rules still get
wrong is a strict xfail with its reason, as in the other red-team files.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from kimina_format import check_format, parse_completion
from kimina_format.testing import final_code_of as _code
from kimina_format.testing import full_score_split, xfail_params
from kimina_format.testing import with_final_code as _with_code

Row = dict[str, Any]
Edit = Callable[[Row], "Row | None"]

PASSAGE = (
    "Let me double-check the bound on the second factor before going on.",
    "Since both factors are positive, the product is positive as well, as required.",
    "So the inequality holds, and the remaining case is handled by the same argument.",
)
WORDINGS = (
    ("double-check", "recheck"),
    ("bound", "estimate"),
    ("second", "other"),
    ("before going on", "first"),
)
OPENING = (
    "We need to prove the statement. Let me think about which tactics apply here and how the hypotheses combine."
    " The key step is to simplify the goal with the given facts and then close it with arithmetic."
)


# --- where an edit writes ----------------------------------------------------------------------------------------------


def _edited(row: Row, text: str) -> Row | None:
    return None if text == row["completion"] else {**row, "completion": text}


def _after_open(text: str, insert: str) -> str:
    return text.replace("<think>", "<think>\n" + insert + "\n", 1)


def _before_close(text: str, insert: str) -> str:
    return text.replace("</think>", "\n" + insert + "\n</think>", 1)


def _spread(text: str, pieces: list[str]) -> str:
    """`pieces` inserted as paragraphs at evenly spaced paragraph breaks of the thinking, outside its blocks."""
    start, end = text.index("<think>") + len("<think>"), text.index("</think>")
    thinking = text[start:end]
    fences = [m.span() for m in re.finditer(r"^```.*?^```", thinking, re.M | re.S)]
    gaps = [m.start() for m in re.finditer(r"\n\n", thinking) if not any(a <= m.start() < b for a, b in fences)] or [0]
    at: dict[int, list[str]] = {}
    for i, piece in enumerate(pieces):
        at.setdefault(gaps[i * len(gaps) // len(pieces)], []).append(piece)
    out, last = [], 0
    for gap in sorted(at):
        out += [thinking[last:gap], "".join("\n\n" + piece for piece in at[gap])]
        last = gap
    return text[:start] + "".join(out) + thinking[last:] + text[end:]


def _theorem_at(code: str) -> int:
    found = re.search(r"^(theorem|lemma)\s", code, re.M)
    return found.start() if found else -1


def _proof_lines(code: str, filler: str) -> str:
    """`filler` after every line of the proof that ends a tactic (not one that opens a term or a block)."""
    out, inside = [], False
    for line in code.split("\n"):
        out.append(line)
        if inside and line.strip() and not line.rstrip().endswith(("by", ":=", "=>", "<;>", ",", "(", "[")):
            out.append(line[: len(line) - len(line.lstrip())] + filler)
        inside = inside or bool(re.search(r":=\s*by\s*$", line))
    return "\n".join(out)


def _tactic_blocks(text: str) -> list[str]:
    return [text[b.start : b.end] for b in parse_completion(text).tactic_blocks]


# --- attack edits -----------------------------------------------------------------------------------------------------


def _inline(phrase: str, times: int, *, summary: bool = False) -> Edit:
    def edit(row: Row) -> Row | None:
        line = " ".join([phrase] * times)
        text = row["completion"]
        return _edited(
            row, text.replace("</think>", "</think>\n" + line + "\n", 1) if summary else _before_close(text, line)
        )

    return edit


def _reordered_passage(row: Row) -> Row | None:
    """The passage written 19 times in a row, its first two lines swapped in every other copy."""
    first, second, third = PASSAGE
    copies = ["\n".join((second, first, third) if i % 2 else PASSAGE) for i in range(19)]
    return _edited(row, _after_open(row["completion"], "\n\n".join(copies)))


def _shuffled_passage(row: Row) -> Row | None:
    copies = []
    for i in range(19):
        lines = list(PASSAGE)
        random.Random(i).shuffle(lines)
        copies.append("\n".join(lines))
    return _edited(row, _after_open(row["completion"], "\n\n".join(copies)))


def _four_wordings(row: Row) -> Row | None:
    """One line in four wordings, each written ten times, spread over the thinking."""
    lines = [PASSAGE[0].replace(*WORDINGS[i % 4]) for i in range(40)]
    return _edited(row, _spread(row["completion"], lines))


def _spread_passage(copies: int, *, alternate_break: bool = False) -> Edit:
    def edit(row: Row) -> Row | None:
        pieces = [("\n" if alternate_break and i % 2 else "") + "\n".join(PASSAGE) for i in range(copies)]
        return _edited(row, _spread(row["completion"], pieces))

    return edit


def _guessing_loop(lead_in: str, tactics: tuple[str, ...]) -> Edit:
    def edit(row: Row) -> Row | None:
        steps = [f"{lead_in}\n\n```tactics\n{tactics[i % len(tactics)]}\n```" for i in range(100)]
        return _edited(row, _before_close(row["completion"], "\n\n".join(steps)))

    return edit


def _theorem_as_examples(row: Row) -> Row | None:
    code = _code(row["completion"])
    at = _theorem_at(code)
    if at < 0:
        return None
    example = re.sub(r"^(theorem|lemma)\s+\S+", "example", code[at:].rstrip())
    return _edited(row, _with_code(row["completion"], code.rstrip() + "\n\n" + "\n\n".join([example] * 10) + "\n"))


def _theorem_renamed(row: Row) -> Row | None:
    code = _code(row["completion"])
    at = _theorem_at(code)
    if at < 0:
        return None
    theorem = code[at:].rstrip()
    copies = [re.sub(r"^(theorem|lemma)\s+(\S+)", rf"\1 \2_v{k}", theorem, count=1) for k in range(8)]
    return _edited(row, _with_code(row["completion"], code[:at] + "\n\n".join([*copies, theorem]) + "\n"))


def _skip_after_each_proof_line(row: Row) -> Row | None:
    code = _code(row["completion"])
    return _edited(row, _with_code(row["completion"], _proof_lines(code, "skip")))


def _skip_in_blocks(row: Row) -> Row | None:
    def block(found: re.Match[str]) -> str:
        lines = []
        for line in found.group(1).split("\n"):
            lines.append(line)
            if line.strip() and not line.rstrip().endswith(("by", ":=")):
                lines.append(line[: len(line) - len(line.lstrip())] + "skip")
        return "```tactics\n" + "\n".join(lines) + "\n```"

    return _edited(row, re.sub(r"```tactics\n(.*?)\n```", block, row["completion"], flags=re.S))


def _code_in_summary(fence: str) -> Edit:
    def edit(row: Row) -> Row | None:
        text = row["completion"]
        pasted = f"</think>\nThe proof:\n{fence}\n{_code(text).strip()}\n```\n"
        return _edited(row, text.replace("</think>", pasted, 1))

    return edit


def _blocks_without_reasoning(row: Row) -> Row | None:
    """The thinking is a stock opening and the row's own tactic blocks, all its reasoning deleted."""
    text = row["completion"]
    thinking = f"<think>\n{OPENING}\n\n" + "\n\n".join(_tactic_blocks(text)) + "\n</think>"
    return _edited(row, thinking + f"\n```lean4\n{_code(text).strip()}\n```")


def _proof_in_attempts(row: Row) -> Row | None:
    """The thinking is a stock opening and the final proof pasted in eight blocks headed `Attempt k:`."""
    code = _code(row["completion"]).strip()
    found = re.search(r":=\s*by\s*\n", code)
    if not found:
        return None
    body = code[found.end() :]
    attempts = "".join(f"\n\nAttempt {k}:\n\n```tactics\n{body}\n```" for k in range(8))
    return _edited(row, f"<think>\n{OPENING}{attempts}\n</think>\n```lean4\n{code}\n```")


def _renamed_copy(row: Row) -> Row | None:
    """The final code in a block, then again with its hypotheses renamed (`h₀` to `hh0`, `h3` to `hyp3`)."""
    code = _code(row["completion"]).strip()
    renamed = re.sub(r"\bh(\d)\b", r"hyp\1", code).replace("h₀", "hh0").replace("h₁", "hh1").replace("h₂", "hh2")
    thinking = f"<think>\n{OPENING}\n\n```tactics\n{code}\n```\n\nSame with other names:\n\n```tactics\n{renamed}\n```"
    return _edited(row, thinking + f"\n</think>\n```lean4\n{code}\n```")


def _lines_in_first_block(lines: tuple[str, ...]) -> Edit:
    def edit(row: Row) -> Row | None:
        text = row["completion"]
        blocks = parse_completion(text).tactic_blocks
        if not blocks:
            return None
        end = blocks[0].body_start + len(blocks[0].text)
        return _edited(row, text[:end] + "\n" + "\n".join(lines) + text[end:])

    return edit


def _trailing_spaces(count: int) -> Edit:
    def edit(row: Row) -> Row | None:
        text = row["completion"]
        end = text.index("</think>")
        # Each line's own trailing spaces replaced: a writer that ends lines with spaces ends them all alike.
        return _edited(row, re.sub(r"[ \t]*\n", " " * count + "\n", text[:end]) + text[end:])

    return edit


def _before_theorem(declarations: Callable[[str], str]) -> Edit:
    """`declarations(reasoning)` written before the theorem of the final code."""

    def edit(row: Row) -> Row | None:
        text = row["completion"]
        code = _code(text)
        at = _theorem_at(code)
        if at < 0:
            return None
        reasoning = " ".join(parse_completion(text).reasoning.split())
        return _edited(row, _with_code(text, code[:at] + declarations(reasoning) + "\n\n" + code[at:]))

    return edit


def _guillemet_theorems(reasoning: str) -> str:
    pieces = [reasoning.replace("»", "")[i : i + 150] for i in range(0, 1500, 150)]
    return "\n".join(f"theorem «{piece}» : True := trivial" for piece in pieces if piece)


def _string_literal(reasoning: str) -> str:
    prose = reasoning[:900].replace('"', "'").replace("\\", "/")
    return f'def kimina_note : String := "{prose}"'


def _long_name(reasoning: str) -> str:
    words = [w for w in (w.strip(".,;:()$").lower() for w in reasoning.split()[:300]) if w.isalpha()]
    return f"def {'_'.join(words)} : ℕ := 0"


# --- look-alike edits -------------------------------------------------------------------------------------------------


def _long_sum_line(row: Row) -> Row | None:
    """A sum of twelve fractions on one line: the same shape twelve times, each term a new number."""
    terms = " + ".join(f"\\frac{{1}}{{{k}}}" for k in range(2, 14))
    return _edited(row, _after_open(row["completion"], f"The partial sum is ${terms}$, which we bound next."))


def _goal_restated_four_times(row: Row) -> Row | None:
    goal = "We still need to show that the product of the two factors is positive."
    return _edited(row, _spread(row["completion"], [goal] * 4))


def _same_tactic_after_new_reasoning(row: Row) -> Row | None:
    """The row's first tactic line tried in ten blocks, each after its own reasoning (a real thinking writes
    `omega` in 19 blocks)."""
    blocks = parse_completion(row["completion"]).tactic_blocks
    lines = [line.strip() for line in blocks[0].text.split("\n") if line.strip()] if blocks else []
    if not lines:
        return None
    words = ["First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth"]
    steps = [
        f"{word} attempt. Here the remainder of {k} squared modulo 7 settles the claim, so the same step decides it"
        f" with the bound {k * k}:\n\n```tactics\n{lines[0]}\n```"
        for k, word in enumerate(words)
    ]
    return _edited(row, _before_close(row["completion"], "\n\n".join(steps)))


def _cast_haves(row: Row) -> Row | None:
    """`have h : (n : ℝ) = (n : ℝ) := by norm_num`, developed in the first block and kept in the proof: a cast real
    proofs write (`amc12b_2020_p21`)."""
    text = row["completion"]
    code = _code(text)
    found = re.search(r":=\s*by\s*\n(\s*)", code)
    if not found or "```tactics\n" not in text:
        return None
    line = "have hcast : ((2 : ℕ) : ℝ) = ((2 : ℕ) : ℝ) := by norm_num"
    text = text.replace("```tactics\n", f"```tactics\n{line}\n", 1)
    return _edited(row, _with_code(text, code[: found.end()] + line + "\n" + found.group(1) + code[found.end() :]))


def _helper_with_the_same_proof(row: Row) -> Row | None:
    """A helper lemma proved by `norm_num` before a theorem whose proof is `norm_num` too: two statements."""
    code = _code(row["completion"])
    at = _theorem_at(code)
    if at < 0:
        return None
    helper = "lemma kimina_two_pos : (0 : ℝ) < 2 := by\n  norm_num\n\n"
    return _edited(row, _with_code(row["completion"], code[:at] + helper + code[at:]))


# --- the cases -------------------------------------------------------------------------------------------------------


class Case(NamedTuple):
    """One edit of the real completions: the rule it is about, what it writes, and the xfail reason while it
    misbehaves."""

    rule: str
    edit: Edit
    why: str
    xfail: str | None = None


ATTACKS: dict[str, Case] = {
    "wait_500_times_on_one_line": Case("max_inline_repeats", _inline("Wait.", 500), "`Wait.` x500 on one line"),
    "wait_comma_600_times": Case("max_inline_repeats", _inline("Wait,", 600), "`Wait,` x600 on one line"),
    "sentence_40_times_on_one_line": Case(
        "max_inline_repeats", _inline(PASSAGE[0], 40), "one sentence written 40 times on one line"
    ),
    "summary_done_60_times": Case(
        "max_inline_repeats", _inline("Done.", 60, summary=True), "a summary of `Done.` x60 on one line"
    ),
    "passage_reordered_in_a_row": Case(
        "max_often_repeated_lines", _reordered_passage, "a 3-line passage x19, two lines swapped in every other copy"
    ),
    "passage_shuffled_in_a_row": Case(
        "max_often_repeated_lines", _shuffled_passage, "a 3-line passage x19, its lines shuffled in each copy"
    ),
    "one_line_four_wordings_spread": Case(
        "max_often_repeated_lines", _four_wordings, "one line in four wordings, ten times each, spread out"
    ),
    "passage_fifteen_times_spread": Case(
        "max_often_repeated_lines", _spread_passage(15), "a 3-line passage written 15 times, spread out"
    ),
    "passage_alternating_breaks_spread": Case(
        "max_often_repeated_lines",
        _spread_passage(19, alternate_break=True),
        "a 3-line passage x19 spread, every other copy after two blank lines (another paragraph key)",
    ),
    "guessing_loop_four_tactics": Case(
        "max_block_loop_repeats",
        _guessing_loop("Wait, that fails. Let me try:", ("norm_num", "simp", "linarith", "nlinarith")),
        "`Wait, that fails. Let me try:` before a one-tactic block, four tactics cycled, x100",
    ),
    "guessing_loop_two_tactics": Case(
        "max_block_loop_repeats",
        _guessing_loop("Try:", ("norm_num", "linarith")),
        "`Try:` before `norm_num` and `linarith` alternating, x100",
    ),
    "proof_in_eight_attempts": Case(
        "max_block_loop_repeats", _proof_in_attempts, "a stock opening, then the proof in eight blocks `Attempt k:`"
    ),
    "theorem_as_ten_examples": Case(
        "max_declaration_copies", _theorem_as_examples, "the theorem pasted 10 more times as `example`"
    ),
    "theorem_under_eight_names": Case(
        "max_declaration_copies", _theorem_renamed, "the theorem copied 8 times under new names before it"
    ),
    "skip_after_each_proof_line": Case(
        "max_filler_tactics", _skip_after_each_proof_line, "`skip` after every line of the final proof"
    ),
    "skip_after_each_block_line": Case(
        "max_filler_tactics", _skip_in_blocks, "`skip` after every line of every tactic block"
    ),
    "final_code_in_summary_tactics_fence": Case(
        "max_summary_blocks",
        _code_in_summary("```tactics"),
        "the final code pasted in a tactics block after `</think>`",
    ),
    "final_code_in_summary_bare_fence": Case(
        "max_summary_blocks", _code_in_summary("```"), "the final code pasted in a bare fence after `</think>`"
    ),
    "blocks_without_their_reasoning": Case(
        "max_copied_to_reasoning",
        _blocks_without_reasoning,
        "a stock opening and the row's own tactic blocks, every line of reasoning deleted",
        "HOLE: blocks that develop the proof in steps copy fewer of its lines than 1.25 times the stock opening's"
        " bytes (31/188); lower bounds reject a real row given one block that is its whole proof",
    ),
    "final_code_again_renamed": Case(
        "max_copied_to_reasoning",
        _renamed_copy,
        "a stock opening, the final code, and the code with hypotheses renamed",
    ),
    "lowercase_sentences_in_a_block": Case(
        "max_tactic_prose_lines",
        _lines_in_first_block(
            (
                "  first simplify both sides using ring and then close with linarith",
                "  this step follows from positivity of squares",
                "  finally conclude by omega since everything is integral",
            )
        ),
        "lowercase sentences with none of the listed function words, in a tactic block",
    ),
    "short_sentences_in_a_block": Case(
        "max_tactic_prose_lines",
        _lines_in_first_block(("  Simplify both sides.", "  Check the bound.", "  Then close it.")),
        "short capitalised sentences in a tactic block",
    ),
    "questions_in_a_block": Case(
        "max_tactic_prose_lines",
        _lines_in_first_block(("  does linarith work here?", "  maybe nlinarith instead?", "  what about positivity?")),
        "questions in a tactic block",
    ),
    "capitals_in_a_block": Case(
        "max_tactic_prose_lines",
        _lines_in_first_block(("  NOW WE SIMPLIFY THE GOAL", "  THEN WE CLOSE THE GOAL BY ARITHMETIC")),
        "English in capitals in a tactic block",
    ),
    "markdown_and_latex_in_a_block": Case(
        "max_tactic_prose_lines",
        _lines_in_first_block(("## Step 1: Simplify", "**then close**", r"  \( x^2 \geq 0 \) for all real x")),
        "a Markdown heading, bold and LaTeX brackets in a tactic block",
    ),
    "french_and_chinese_in_a_block": Case(
        "max_tactic_prose_lines",
        _lines_in_first_block(("  Étape un : simplifier les deux côtés", "  我们首先化简两边")),
        "French and Chinese in a tactic block",
    ),
    "ten_trailing_spaces_per_line": Case(
        "max_trailing_space_lines", _trailing_spaces(10), "10 spaces after every line of the thinking"
    ),
    "reasoning_as_guillemet_names": Case(
        "max_code_literal_chars",
        _before_theorem(_guillemet_theorems),
        "the reasoning as ten theorems `«150 characters» : True := trivial` before the theorem",
    ),
    "reasoning_as_a_string": Case(
        "max_code_literal_chars",
        _before_theorem(_string_literal),
        "900 characters of the reasoning as a `String` definition before the theorem",
    ),
    "reasoning_as_a_name": Case(
        "max_code_literal_chars",
        _before_theorem(_long_name),
        "the reasoning's first 300 words as the name of a `def`, joined by `_`",
    ),
}

LOOK_ALIKES: dict[str, Case] = {
    "sum_of_twelve_fractions": Case(
        "max_inline_repeats", _long_sum_line, "a sum of twelve fractions on one line, each a new number"
    ),
    "goal_restated_four_times": Case(
        "max_often_repeated_lines", _goal_restated_four_times, "the goal restated four times, spread out"
    ),
    "omega_after_new_reasoning_each_time": Case(
        "max_block_loop_repeats",
        _same_tactic_after_new_reasoning,
        "`omega` in ten blocks, each after its own reasoning",
    ),
    "cast_have_in_the_proof": Case("max_filler_tactics", _cast_haves, "a `have` of a cast equal to itself"),
    "markdown_line_breaks": Case(
        "max_trailing_space_lines",
        _trailing_spaces(2),
        "two spaces (a Markdown line break) after every line of the thinking",
    ),
    "helper_with_the_same_proof": Case(
        "max_declaration_copies", _helper_with_the_same_proof, "a helper lemma proved by `norm_num`, like the theorem"
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


def test_hypothesis_names_and_constructors_are_no_prose(full_score_rows: list[Row]) -> None:
    # Not a full-score look-alike: the tactics these lines add would change the alignment of the blocks and the proof.
    edit = _lines_in_first_block(
        ("  intro hab hbc hpos", "  rcases h with h | h", "  cases n with | zero => simp | succ k => omega")
    )
    counts = []
    for row in full_score_rows:
        edited = edit(dict(row))
        if edited is not None:
            counts.append(check_format(edited["completion"]).metrics.tactic_prose_lines)
    assert len(counts) >= 150
    assert not any(counts), f"{sum(map(bool, counts))} rows count a prose line"


def test_names_the_final_code_uses_are_no_prose(full_score_rows: list[Row]) -> None:
    # A problem stated with word-named variables: the block line that develops them reads as words, but the final
    # code uses the same names outside its comments, so they are Lean's.
    line = "  have area_eq : area = width * height := by ring"
    edit = _lines_in_first_block((line, line.replace("area_eq", "total_eq").replace("area", "total")))
    counts = []
    for row in full_score_rows:
        edited = edit(dict(row))
        code = _code(row["completion"])
        found = re.search(r":=\s*by\s*\n(\s*)", code)
        if edited is None or found is None:
            continue
        names = f"{found.group(1)}-- uses area, total, width and height as Lean names\n{found.group(1)}"
        proof = code[: found.end()] + f"have : area = total ∨ width = height := sorry\n{names}" + code[found.end() :]
        text = _with_code(edited["completion"], proof)
        counts.append(check_format(text).metrics.tactic_prose_lines)
    assert len(counts) >= 150
    assert not any(counts), f"{sum(map(bool, counts))} rows count a prose line"
